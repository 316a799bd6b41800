import Foundation
import Vocabulary

/// One setting of `rangers serve`, said once: its flag, its environment
/// variable, its default and what it means. The command line names its flags
/// from it and reads values through it, a refused value is reported with where
/// it came from, and README's configuration table is made from these (a test
/// holds the two together).
public struct ServeSetting: Sendable, Hashable {
    /// As the configuration and its problems name it: `leaseSeconds`, `followers.channelLimit`.
    public let name: String
    /// The long flag without its dashes; nil for what is read from the environment
    /// only (a secret, kept out of the process list).
    public let flag: String?
    public let variable: String
    /// As the table shows it: a value in backticks, or a word (`required`, `generated`).
    public let shownDefault: String
    public let meaning: String

    /// Where a value comes from, for messages: `--lease-seconds or $RANGERS_LEASE_SECONDS`.
    public var sources: String { flag.map { "--\($0) or $\(variable)" } ?? "$\(variable)" }

    /// The flag's value if given, else the environment's (an empty variable counts as unset).
    public func value(flag given: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        given ?? environment[variable].flatMap { $0.isEmpty ? nil : $0 }
    }
}

/// Every setting of `rangers serve`, in the order the README's table lists them.
public enum ServeSettings {
    public static let defaultLeaseSeconds = 5
    public static let leaseRange = 1...300
    public static let defaultHost = "127.0.0.1"
    public static let defaultPort = 8080
    public static let defaultDatabasePath = "rangers.sqlite"
    /// Well inside an orchestrator's usual 30 s between SIGTERM and SIGKILL.
    public static let defaultDrainSeconds = 20
    public static let drainRange = 1...120
    public static let defaultRequestDeadlineSeconds = 15
    public static let requestDeadlineRange = 1...300
    public static let defaultSignUpsPerMinute = 10
    public static let defaultFailedAuthenticationsPerMinute = 10
    public static let limitRange = 1...100_000

    public static let gameMasterKey = ServeSetting(
        name: "gameMasterKey", flag: nil, variable: "RANGERS_GAME_MASTER_KEY", shownDefault: "required",
        meaning: "the game master's bearer key, \(ServerConfiguration.shortestGameMasterKey)+ printable characters (environment only, never printed)")
    public static let apns = ServeSetting(
        name: "apns", flag: "apns", variable: "RANGERS_APNS", shownDefault: "required",
        meaning: "where pushes go: `apple` (Apple's APNs, with the key below) or `simulator` (an APNs simulator inside the "
            + "process: pushes reach no phone; it says so at start, in `/healthz` and in the `rangers_apns_simulator` metric)")
    public static let apnsKeyFile = ServeSetting(
        name: "apns.keyFile", flag: "key-file", variable: "APNS_KEY_FILE", shownDefault: "required with `apple`",
        meaning: "the provider key (`.p8`)")
    public static let apnsKeyID = ServeSetting(
        name: "apns.keyID", flag: "key-id", variable: "APNS_KEY_ID", shownDefault: "required with `apple`", meaning: "the key's id")
    public static let apnsTeamID = ServeSetting(
        name: "apns.teamID", flag: "team-id", variable: "APNS_TEAM_ID", shownDefault: "required with `apple`", meaning: "the team id")
    public static let apnsEnvironment = ServeSetting(
        name: "apns.environment", flag: "environment", variable: "APNS_ENVIRONMENT", shownDefault: "required with `apple`",
        meaning: "`sandbox` (development builds' tokens) or `production` (TestFlight and App Store builds' tokens)")
    public static let apnsURL = ServeSetting(
        name: "apns.url", flag: "apns-url", variable: "APNS_URL", shownDefault: "Apple's hosts",
        meaning: "another APNs endpoint (a proxy, or `rangers apns-sim`); `--management-url` and `--ca-file` go with it")
    public static let databasePath = ServeSetting(
        name: "databasePath", flag: "db", variable: "RANGERS_DB", shownDefault: "`\(defaultDatabasePath)`",
        meaning: "the SQLite file (created with its schema)")
    public static let databaseURL = ServeSetting(
        name: "databaseURL", flag: "database", variable: "RANGERS_DATABASE_URL", shownDefault: "—",
        meaning: "a PostgreSQL database instead (see [storage](docs/storage.md#storage)); the environment keeps the password out of the process list")
    public static let nodeID = ServeSetting(
        name: "nodeID", flag: "node-id", variable: "RANGERS_NODE_ID", shownDefault: "generated",
        meaning: "this node's id among those sharing a PostgreSQL database (see [running several nodes](docs/storage.md#running-several-nodes))")
    public static let leaseSeconds = ServeSetting(
        name: "leaseSeconds", flag: "lease-seconds", variable: "RANGERS_LEASE_SECONDS", shownDefault: "`\(defaultLeaseSeconds)`",
        meaning: "how long a node's heartbeat and its leases on adventures last without renewal "
            + "(\(leaseRange.lowerBound)…\(leaseRange.upperBound); an adventure's lease is never under two of its ticks)")
    public static let drainSeconds = ServeSetting(
        name: "drainSeconds", flag: "drain-seconds", variable: "RANGERS_DRAIN_SECONDS", shownDefault: "`\(defaultDrainSeconds)`",
        meaning: "how long a node stopping on SIGTERM keeps sending the pushes it holds (\(drainRange.lowerBound)…\(drainRange.upperBound)); "
            + "what is left then goes back to pending when its claims expire, and it exits 1 saying how many")
    public static let requestDeadline = ServeSetting(
        name: "requestDeadline", flag: "request-deadline-seconds", variable: "RANGERS_REQUEST_DEADLINE_SECONDS",
        shownDefault: "`\(defaultRequestDeadlineSeconds)`",
        meaning: "the longest a request may wait for its answer (\(requestDeadlineRange.lowerBound)…\(requestDeadlineRange.upperBound)); "
            + "past it, as when the database is away, it is answered 503 with `Retry-After`")
    public static let signUpsPerMinute = ServeSetting(
        name: "limits.signUpsPerMinute", flag: nil, variable: "RANGERS_SIGNUPS_PER_MINUTE", shownDefault: "`\(defaultSignUpsPerMinute)`",
        meaning: "players one client address may create a minute, over every node; more get 429 with `Retry-After`")
    public static let failedAuthenticationsPerMinute = ServeSetting(
        name: "limits.failedAuthenticationsPerMinute", flag: nil, variable: "RANGERS_FAILED_AUTH_PER_MINUTE",
        shownDefault: "`\(defaultFailedAuthenticationsPerMinute)`",
        meaning: "wrong keys one client address may try a minute, over every node; past it every request with a key "
            + "from there gets 429 with `Retry-After` until the minute ends")
    public static let trustedProxies = ServeSetting(
        name: "limits.trustedProxies", flag: nil, variable: "RANGERS_TRUSTED_PROXIES", shownDefault: "none",
        meaning: "addresses of the proxies in front of the nodes (comma-separated); only from them is `X-Forwarded-For` "
            + "taken as the client's address")
    public static let host = ServeSetting(
        name: "host", flag: "host", variable: "RANGERS_HOST", shownDefault: "`\(defaultHost)`", meaning: "the address the HTTP API listens on")
    public static let port = ServeSetting(
        name: "port", flag: "port", variable: "RANGERS_PORT", shownDefault: "`\(defaultPort)`", meaning: "the port it listens on")
    public static let bundleID = ServeSetting(
        name: "bundleID", flag: "bundle-id", variable: "RANGERS_BUNDLE_ID", shownDefault: "`\(SampleApp.bundleID)`",
        meaning: "the app's bundle id (the push topics derive from it)")
    public static let contentDirectory = ServeSetting(
        name: "contentDirectory", flag: "content", variable: "RANGERS_CONTENT", shownDefault: "`Content`",
        meaning: "the content folder (heroes, bosses, strings, sounds)")
    public static let audioRetention = ServeSetting(
        name: "pushToTalk.audioRetention", flag: nil, variable: "RANGERS_PTT_AUDIO_RETENTION", shownDefault: "`24h`",
        meaning: "how long walkie-talkie audio is kept (seconds, or `45m`, `24h`; at least a minute)")
    public static let liveLinkSecret = ServeSetting(
        name: "liveLinkSecret", flag: nil, variable: "RANGERS_LIVE_LINK_SECRET", shownDefault: "made for the process",
        meaning: "the secret [live-page links](docs/api.md#watching-an-adventure-the-live-page) are signed with, 32+ characters, the same on every node behind one load balancer "
            + "(environment only, never printed); without it links stop working when the process stops")
    public static let tokenFollowersPerAdventure = ServeSetting(
        name: "followers.tokenFollowersPerAdventure", flag: nil, variable: "RANGERS_TOKEN_FOLLOWERS_PER_ADVENTURE", shownDefault: "`20`",
        meaning: "followers per adventure whose app cannot listen on a broadcast channel (before iOS 18); more get 409 (see [followers](docs/api.md#followers))")
    public static let channelLimit = ServeSetting(
        name: "followers.channelLimit", flag: nil, variable: "RANGERS_CHANNEL_LIMIT", shownDefault: "`10000`",
        meaning: "broadcast channels the app may have at once, counted over every node (0…10,000, Apple's limit per app and "
            + "environment); lower it when another server uses the same bundle id and environment")
    public static let channelStorage = ServeSetting(
        name: "followers.channelStoragePolicy", flag: nil, variable: "RANGERS_CHANNEL_STORAGE", shownDefault: "`most-recent`",
        meaning: "`most-recent` (APNs keeps a channel's newest broadcast for a device that comes back) or `no-storage` "
            + "(every broadcast `apns-expiration: 0`)")
    public static let deleteUnknownChannels = ServeSetting(
        name: "followers.deletesUnknownChannels", flag: nil, variable: "RANGERS_DELETE_UNKNOWN_CHANNELS", shownDefault: "`on`",
        meaning: "`on`: the server deletes the app's channels that no node knows (left by a crash); `off` when another server "
            + "makes channels for the same bundle id and environment")

    public static let all: [ServeSetting] = [
        gameMasterKey, apns, apnsKeyFile, apnsKeyID, apnsTeamID, apnsEnvironment, apnsURL, databasePath, databaseURL, nodeID,
        leaseSeconds, drainSeconds, requestDeadline, host, port, bundleID, contentDirectory, audioRetention, liveLinkSecret, tokenFollowersPerAdventure,
        channelLimit, channelStorage, deleteUnknownChannels, signUpsPerMinute, failedAuthenticationsPerMinute, trustedProxies,
    ]

    /// The setting a problem names, if it is one of these.
    public static func named(_ name: String) -> ServeSetting? { all.first { $0.name == name } }

    /// README's table of `rangers serve`'s settings, one row each.
    public static var markdownTable: String {
        var lines = ["| flag / environment | meaning | default |", "|---|---|---|"]
        for setting in all {
            let source = setting.flag.map { "`--\($0)` / `\(setting.variable)`" } ?? "`\(setting.variable)`"
            lines.append("| \(source) | \(setting.meaning) | \(setting.shownDefault) |")
        }
        return lines.joined(separator: "\n")
    }
}
