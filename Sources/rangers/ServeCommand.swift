import APNs
import APNsCurl
import APNsSimulator
import ArgumentParser
import Foundation
import Hummingbird
import Logging
import Server
import ServiceLifecycle
import Services
import Vocabulary

/// `rangers serve`: the HTTP API, the ticker and the dispatcher in one process.
/// Its settings are declared in `ServeSettings` (flag, environment variable,
/// default); secrets are read only from the environment, so they never show in
/// a process list.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the server: the HTTP API, the ticker and the dispatcher.",
        discussion: "Read from the environment only:\n"
            + ServeSettings.all.filter { $0.flag == nil }
                .map { "  \($0.sources): \($0.meaning) (default: \($0.shownDefault))" }.joined(separator: "\n")
    )

    @OptionGroup var database: DatabaseOptions

    @Option(name: .customLong(ServeSettings.nodeID.flag!), help: ArgumentHelp(ServeSettings.nodeID))
    var nodeID: String?

    @Option(name: .customLong(ServeSettings.leaseSeconds.flag!), help: ArgumentHelp(ServeSettings.leaseSeconds))
    var leaseSeconds: String?

    @Option(name: .customLong(ServeSettings.drainSeconds.flag!), help: ArgumentHelp(ServeSettings.drainSeconds))
    var drainSeconds: String?

    @Option(name: .customLong(ServeSettings.requestDeadline.flag!), help: ArgumentHelp(ServeSettings.requestDeadline))
    var requestDeadlineSeconds: String?

    @Option(name: .customLong(ServeSettings.host.flag!), help: ArgumentHelp(ServeSettings.host))
    var host: String?

    @Option(name: .customLong(ServeSettings.port.flag!), help: ArgumentHelp(ServeSettings.port))
    var port: String?

    @Option(name: .customLong(ServeSettings.bundleID.flag!), help: ArgumentHelp(ServeSettings.bundleID))
    var bundleID: String?

    @Option(name: .customLong(ServeSettings.apns.flag!), help: ArgumentHelp(ServeSettings.apns))
    var apns: String?

    @OptionGroup var content: ContentOptions
    @OptionGroup var connection: APNsConnectionOptions

    /// Said when no choice is given: the two there are, on one line.
    static let noAPNsChoice = "serve needs to be told where pushes go: --apns apple (with --key-file, --key-id, --team-id, "
        + "--environment) or --apns simulator (pushes reach no phone); or set RANGERS_APNS"

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        // Before anything is opened: a node that would push nowhere useful starts no server and makes no database.
        guard let mode = ServeSettings.apns.value(flag: apns) else { throw UsageError(Self.noAPNsChoice) }
        guard mode == "apple" || mode == "simulator" else {
            throw UsageError("apns: '\(mode.prefix(40))' must be apple or simulator (\(ServeSettings.apns.sources))")
        }
        var pushToTalk = PushToTalkSettings()
        if let retention = ServeSettings.audioRetention.value(flag: nil) {
            pushToTalk.audioRetention = .seconds(try DurationText.seconds(parsing: retention))
        }
        let (databasePath, databaseURL) = try database.settings(defaultPath: ServeSettings.defaultDatabasePath)
        var configuration = ServerConfiguration(
            gameMasterKey: ServeSettings.gameMasterKey.value(flag: nil) ?? "", apns: try endpointKind(mode),
            databasePath: databasePath, databaseURL: databaseURL,
            nodeID: ServeSettings.nodeID.value(flag: nodeID),
            leaseSeconds: try Self.number(ServeSettings.leaseSeconds, flag: leaseSeconds) ?? ServeSettings.defaultLeaseSeconds,
            host: ServeSettings.host.value(flag: host) ?? ServeSettings.defaultHost,
            port: try Self.number(ServeSettings.port, flag: port) ?? ServeSettings.defaultPort,
            contentDirectory: content.directory,
            pushPolicy: try PolicyEnvironment.configuration(from: environment),
            bundleID: ServeSettings.bundleID.value(flag: bundleID) ?? SampleApp.bundleID,
            pushToTalk: pushToTalk, followers: try FollowerEnvironment.settings(from: environment),
            liveLinkSecret: ServeSettings.liveLinkSecret.value(flag: nil),
            dispatcher: Dispatcher.Settings(drainTime: .seconds(
                try Self.number(ServeSettings.drainSeconds, flag: drainSeconds) ?? ServeSettings.defaultDrainSeconds)))
        if let limit = try Self.number(ServeSettings.signUpsPerMinute, flag: nil) { configuration.limits.signUpsPerMinute = limit }
        if let limit = try Self.number(ServeSettings.failedAuthenticationsPerMinute, flag: nil) {
            configuration.limits.failedAuthenticationsPerMinute = limit
        }
        if let proxies = ServeSettings.trustedProxies.value(flag: nil) {
            configuration.limits.trustedProxies = Set(proxies.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        }
        if let seconds = try Self.number(ServeSettings.requestDeadline, flag: requestDeadlineSeconds) {
            configuration.requestDeadline = .seconds(seconds)
        }
        let resources: ServerResources
        do {
            resources = try await ServerResources.open(configuration)
        } catch let error as InvalidConfiguration {
            throw UsageError(error)
        }

        let apns: APNsEndpoint
        switch configuration.apns {
        case .simulator:
            apns = try await .simulator(metrics: resources.metricsFactory)
            print("APNs: THE SIMULATOR inside this process at \(apns.client.environment.baseURL): pushes reach no phone "
                  + "(for Apple's APNs: --apns apple)")
        case .sandbox, .production, .custom:
            apns = try connection.endpoint(metrics: resources.metricsFactory, defaultEnvironment: nil)
            print("APNs: \(apns.client.environment.baseURL)")
        }

        if configuration.liveLinkSecret == nil {
            print("Live-page links: signed with a secret made for this process (they stop working when it stops); "
                  + "set RANGERS_LIVE_LINK_SECRET to keep them across restarts and nodes")
        }
        let app = try buildApplication(configuration, resources: resources, apns: apns, onListening: { [configuration] port in
            print("Listening on http://\(configuration.host):\(port) (database \(configuration.store), node \(resources.store.node))")
            fflush(nil)
        })
        // The drain has its deadline; this bounds everything else a stop waits for
        // (requests in flight, the last commit), so a node whose database is gone still exits.
        let drain = configuration.dispatcher.drainTime
        var stopping = ServiceGroupConfiguration(services: [app, StopDeadline(limit: drain + .seconds(10))],
                                                 gracefulShutdownSignals: [.sigterm, .sigint], logger: Logger(label: "rangers"))
        stopping.maximumGracefulShutdownDuration = drain + .seconds(5)
        var left: PushesLeftUnsent?
        do {
            try await ServiceGroup(configuration: stopping).run()
        } catch let error as PushesLeftUnsent {
            left = error
        }
        if try await ServiceClock.continuous.value(within: .seconds(5), of: { [resources] in await resources.close() }) == nil {
            print("the database did not answer while closing; this node's heartbeat and leases run out by themselves")
        }
        await apns.shutdown()
        if let left {
            // Said on one line; the exit status is 1 (2 is for settings refused at start).
            FileHandle.standardError.write(Data("rangers serve: \(left)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// A whole number from the flag or the environment; nil when neither gives one.
    static func number(_ setting: ServeSetting, flag: String?) throws(UsageError) -> Int? {
        guard let text = setting.value(flag: flag) else { return nil }
        guard let value = Int(text) else { throw UsageError("\(setting.name) (\(setting.sources)): '\(text.prefix(40))' is not a number") }
        return value
    }

    /// What `mode` and the connection options name, checked before anything starts.
    private func endpointKind(_ mode: String) throws -> APNsEndpointKind {
        guard mode == "apple" else { return .simulator }
        let environment = try connection.appleEnvironment(default: nil)
        if connection.endpointURL != nil { return .custom }
        return environment == .production ? .production : .sandbox
    }
}

/// Ends the process when a stop outlives `limit`: a query waiting for a database
/// that is gone may ignore cancellation, and an orchestrator would kill the node
/// anyway. Last in the group, so it hears of the stop first, and it only starts
/// the clock: the stop itself goes on.
struct StopDeadline: Service {
    let limit: Duration

    func run() async throws {
        do {
            try await gracefulShutdown()
        } catch {
            return
        }
        let limit = limit
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: Double(limit.components.seconds))
            FileHandle.standardError.write(Data(("rangers serve: the stop outlived its \(limit.components.seconds) s (the database does not "
                + "answer); exiting: the pushes this node held go back to pending once its claims expire\n").utf8))
            exit(1)
        }
    }
}
