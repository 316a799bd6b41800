import Foundation
import LiveView
import PushPolicy
import Services
import Store
import StoreSQLite
import Vocabulary

/// What the HTTP API needs to start. Plain values, so `rangers serve` can fill it
/// from the environment or a file and the tests can fill it by hand.
public struct ServerConfiguration: Sendable {
    /// The SQLite file; created with its schema when missing. Not used when
    /// `databaseURL` is set.
    public var databasePath: String
    /// A PostgreSQL database (`postgres://user:password@host:port/name`) to use
    /// instead of the SQLite file. It holds a password: never printed.
    public var databaseURL: String?
    /// This process's id among the nodes sharing a PostgreSQL store; generated when nil.
    public var nodeID: String?
    /// How long a node's heartbeat and its leases on adventures last without
    /// renewal (PostgreSQL): a node that dies is taken over after this. An
    /// adventure's lease is never shorter than two of its tick intervals.
    public var leaseSeconds: Int
    public var host: String
    /// 0 lets the system pick a free port (for tests and the demo).
    public var port: Int
    /// The game master's bearer key. Kept apart from player keys: whoever holds it
    /// starts and ends adventures for any party.
    public var gameMasterKey: String
    /// Content/: heroes, bosses, the string catalog and the sounds.
    public var contentDirectory: URL
    public var pushPolicy: PushPolicyConfiguration
    /// The app's bundle id; pushes go to the topic `<bundleID>.push-type.liveactivity`.
    public var bundleID: String
    /// Larger request bodies are refused with 413 before they are read whole.
    public var maximumRequestBodyBytes: Int
    public var pushToTalk: PushToTalkSettings
    /// The secret live-page links are signed with (`POST /v1/adventures/{id}/live-links`).
    /// Nodes behind one load balancer need the same; nil signs with a secret made
    /// for this process, whose links end with it. Never printed.
    public var liveLinkSecret: String?
    public var followers: FollowerSettings
    /// Where this node's pushes go. It has no default: a node that pushes to a
    /// simulator reaches no phone, so that is said aloud, never assumed.
    public var apns: APNsEndpointKind
    /// How the ticker and the dispatcher pace themselves (tests and the demo look more often).
    public var ticker: Ticker.Settings
    public var dispatcher: Dispatcher.Settings
    /// The longest a request may take to answer before it is answered 503 with
    /// `Retry-After`: a database that is away must not hold a client. A streamed
    /// answer (the live page's events) counts only until it starts.
    public var requestDeadline: Duration = .seconds(ServeSettings.defaultRequestDeadlineSeconds)
    /// Sign-ups and failed authentications per client address.
    public var limits = AbuseLimits()

    /// Shorter game-master keys could be guessed; 32 characters of a random
    /// base64 or hex string are well beyond that.
    public static let shortestGameMasterKey = 32
    public static let defaultMaximumRequestBodyBytes = 64 * 1024

    public init(
        gameMasterKey: String,
        apns: APNsEndpointKind,
        databasePath: String = ServeSettings.defaultDatabasePath,
        databaseURL: String? = nil,
        nodeID: String? = nil,
        leaseSeconds: Int = ServeSettings.defaultLeaseSeconds,
        host: String = ServeSettings.defaultHost,
        port: Int = ServeSettings.defaultPort,
        contentDirectory: URL = URL(fileURLWithPath: "Content", isDirectory: true),
        pushPolicy: PushPolicyConfiguration = .standard,
        bundleID: String = SampleApp.bundleID,
        maximumRequestBodyBytes: Int = ServerConfiguration.defaultMaximumRequestBodyBytes,
        pushToTalk: PushToTalkSettings = PushToTalkSettings(),
        followers: FollowerSettings = FollowerSettings(),
        liveLinkSecret: String? = nil,
        ticker: Ticker.Settings = Ticker.Settings(),
        dispatcher: Dispatcher.Settings = Dispatcher.Settings()
    ) {
        self.gameMasterKey = gameMasterKey
        self.apns = apns
        self.databasePath = databasePath
        self.databaseURL = databaseURL
        self.nodeID = nodeID
        self.leaseSeconds = leaseSeconds
        self.host = host
        self.port = port
        self.contentDirectory = contentDirectory
        self.pushPolicy = pushPolicy
        self.bundleID = bundleID
        self.maximumRequestBodyBytes = maximumRequestBodyBytes
        self.pushToTalk = pushToTalk
        self.liveLinkSecret = liveLinkSecret
        self.followers = followers
        self.ticker = ticker
        self.dispatcher = dispatcher
    }

    /// The store these settings name: PostgreSQL when `databaseURL` is set, else the SQLite file.
    public var store: StoreChoice {
        databaseURL.map { .postgres(url: $0, node: nodeID, lease: .seconds(leaseSeconds)) } ?? .sqlite(path: databasePath)
    }

    /// The ticker's pace, its lease upkeep at most a quarter of the lease: a lease
    /// is renewed once past half its time, and must not run out between two looks.
    public var tickerWithinLease: Ticker.Settings {
        var settings = ticker
        settings.leaseUpkeep = min(settings.leaseUpkeep, .seconds(leaseSeconds) / 4)
        return settings
    }

    /// The `apns-topic` of Live Activity pushes (updates, ends and push-to-start).
    public var liveActivityTopic: Topic { PushType.liveactivity.topic(bundleID: bundleID) }
    /// The `apns-topic` of Push To Talk pushes.
    public var pushToTalkTopic: Topic { PushType.pushtotalk.topic(bundleID: bundleID) }

    /// Everything wrong with these settings, each naming its setting; empty when usable.
    /// Messages never quote the game-master key.
    public var problems: [ConfigurationProblem] {
        var problems: [ConfigurationProblem] = []
        func require(_ ok: Bool, _ setting: String, _ message: String) {
            if !ok { problems.append(ConfigurationProblem(setting: setting, message: message)) }
        }
        if let problem = store.problem { problems.append(problem) }
        if let nodeID {
            require(!nodeID.isEmpty && nodeID.count <= 64 && nodeID.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0))
            }, "nodeID", "must be 1…64 letters, digits, '.', '_' or '-'")
        }
        require(ServeSettings.leaseRange.contains(leaseSeconds), "leaseSeconds",
                "must be \(ServeSettings.leaseRange.lowerBound)…\(ServeSettings.leaseRange.upperBound) seconds, not \(leaseSeconds)")
        require(ServeSettings.limitRange.contains(limits.signUpsPerMinute), "limits.signUpsPerMinute",
                "must be \(ServeSettings.limitRange.lowerBound)…\(ServeSettings.limitRange.upperBound)")
        require(ServeSettings.limitRange.contains(limits.failedAuthenticationsPerMinute), "limits.failedAuthenticationsPerMinute",
                "must be \(ServeSettings.limitRange.lowerBound)…\(ServeSettings.limitRange.upperBound)")
        let deadline = Int(requestDeadline.components.seconds)
        require(ServeSettings.requestDeadlineRange.contains(deadline), "requestDeadline",
                "must be \(ServeSettings.requestDeadlineRange.lowerBound)…\(ServeSettings.requestDeadlineRange.upperBound) seconds, not \(deadline)")
        let drain = Int(dispatcher.drainTime.components.seconds)
        require(ServeSettings.drainRange.contains(drain), "drainSeconds",
                "must be \(ServeSettings.drainRange.lowerBound)…\(ServeSettings.drainRange.upperBound) seconds, not \(drain)")
        require(!host.isEmpty && !host.contains(where: \.isWhitespace), "host",
                "must be a host name or address, like 127.0.0.1 or 0.0.0.0")
        require((0...65535).contains(port), "port", "must be 0…65535, not \(port)")
        require(gameMasterKey.count >= Self.shortestGameMasterKey, "gameMasterKey",
                "must be at least \(Self.shortestGameMasterKey) characters (it has \(gameMasterKey.count))")
        require(gameMasterKey.unicodeScalars.allSatisfy { $0.isASCII && $0.properties.isWhitespace == false && $0.value >= 0x21 },
                "gameMasterKey", "must be printable ASCII without spaces (it is sent in an Authorization header)")
        // A player key could otherwise be mistaken for the game master's, or the reverse.
        require(!gameMasterKey.hasPrefix("rk_"), "gameMasterKey", "must not start with 'rk_', the prefix of player keys")
        var isDirectory: ObjCBool = false
        require(FileManager.default.fileExists(atPath: contentDirectory.path, isDirectory: &isDirectory) && isDirectory.boolValue,
                "contentDirectory", "'\(contentDirectory.path)' is not a folder")
        problems += pushPolicy.problems.map { ConfigurationProblem(setting: "pushPolicy", message: $0) }
        let bundleCharacters = bundleID.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "." || $0 == "-")
        }
        require(!bundleID.isEmpty && bundleID.count <= 155 && bundleCharacters && bundleID.contains(".")
                && !bundleID.hasPrefix(".") && !bundleID.hasSuffix("."),
                "bundleID", "must be a reverse-DNS bundle id like com.example.rangers, not '\(bundleID.prefix(80))'")
        require(!bundleID.contains(".push-type."), "bundleID", "is the app's bundle id, without a '.push-type.…' suffix")
        require((1024...(16 << 20)).contains(maximumRequestBodyBytes), "maximumRequestBodyBytes",
                "must be 1 KiB…16 MiB, not \(maximumRequestBodyBytes) bytes")
        problems += pushToTalk.problems
        if let liveLinkSecret {
            require(liveLinkSecret.count >= LiveLinkSigner.shortestSecret, "liveLinkSecret",
                    "must be at least \(LiveLinkSigner.shortestSecret) characters (it has \(liveLinkSecret.count))")
        }
        problems += followers.problems
        return problems
    }

    /// Throws when any setting is unusable, naming each one.
    public func validate() throws(InvalidConfiguration) {
        let problems = problems
        guard problems.isEmpty else { throw InvalidConfiguration(problems: problems) }
    }
}

/// Why the server would not start: every bad setting at once, so one edit fixes them all.
public struct InvalidConfiguration: Error, Sendable, CustomStringConvertible {
    public var problems: [ConfigurationProblem]

    public init(problems: [ConfigurationProblem]) { self.problems = problems }

    public var description: String {
        "invalid configuration:\n" + problems.map { "  \($0)" }.joined(separator: "\n")
    }
}

/// Which APNs a node sends to, as its operator chose it (`rangers serve --apns`):
/// `/healthz` and the `rangers_apns_simulator` metric report it.
public enum APNsEndpointKind: String, Sendable, Codable {
    /// Apple's development hosts.
    case sandbox
    /// Apple's production hosts.
    case production
    /// An APNs at a URL the operator gave (`--apns-url`): a proxy of theirs, or
    /// `rangers apns-sim` in a process of its own.
    case custom
    /// The APNs simulator inside this process: pushes are checked and answered,
    /// and reach no phone. For `rangers demo`, the tests and a developer's desk.
    case simulator
}
