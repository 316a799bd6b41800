import APNs
import APNsCurl
import APNsSimulator
import ArgumentParser
import Foundation
import Hummingbird
import Server
import Services
import Vocabulary

/// `rangers serve`: the HTTP API, the ticker and the dispatcher in one process.
/// Every setting has a flag and an environment variable; the game-master key is
/// read only from the environment, so it never shows in a process list.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the server: the HTTP API, the ticker and the dispatcher.",
        discussion: """
            The game-master key comes from $RANGERS_GAME_MASTER_KEY (at least 32 characters), and the secret \
            live-page links are signed with from $RANGERS_LIVE_LINK_SECRET (at least 32 characters; the same on \
            every node behind one load balancer; without it, links last only as long as this process). \
            Where pushes go must be said: --apns apple sends them to Apple's APNs with the key from \
            --key-file/--key-id/--team-id and --environment sandbox|production (or APNS_KEY_FILE, APNS_KEY_ID, \
            APNS_TEAM_ID, APNS_ENVIRONMENT); --apns simulator answers them from an APNs simulator inside the \
            process, and they reach no phone (for a developer's desk; `rangers demo` uses it too).
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Option(help: "This node's id among those sharing a PostgreSQL database (or $RANGERS_NODE_ID; default: generated).")
    var nodeID: String?

    @Option(help: "Seconds a node's heartbeat and adventure leases last without renewal, on PostgreSQL (or $RANGERS_LEASE_SECONDS; default 5).")
    var leaseSeconds: Int?

    @Option(help: "The address to listen on (or $RANGERS_HOST).")
    var host: String?

    @Option(help: "The port to listen on (or $RANGERS_PORT).")
    var port: Int?

    @Option(help: "The app's bundle id (or $RANGERS_BUNDLE_ID).")
    var bundleID: String?

    @Option(help: "Where pushes go, required: apple or simulator (or $RANGERS_APNS).")
    var apns: String?

    @OptionGroup var content: ContentOptions
    @OptionGroup var connection: APNsConnectionOptions

    /// Said when no choice is given: the two there are, on one line.
    static let noAPNsChoice = "serve needs to be told where pushes go: --apns apple (with --key-file, --key-id, --team-id, "
        + "--environment) or --apns simulator (pushes reach no phone); or set RANGERS_APNS"

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        // Before anything is opened: a node that would push nowhere useful starts no server and makes no database.
        guard let mode = apns ?? environment["RANGERS_APNS"] else { throw UsageError(Self.noAPNsChoice) }
        guard mode == "apple" || mode == "simulator" else {
            throw UsageError("apns: '\(mode.prefix(40))' must be apple or simulator (RANGERS_APNS)")
        }
        let portText = port.map(String.init) ?? environment["RANGERS_PORT"] ?? "8080"
        guard let port = Int(portText) else { throw UsageError("port: '\(portText)' is not a number (RANGERS_PORT)") }
        var pushToTalk = PushToTalkSettings()
        if let retention = environment["RANGERS_PTT_AUDIO_RETENTION"] {
            pushToTalk.audioRetention = .seconds(try DurationText.seconds(parsing: retention))
        }
        let (databasePath, databaseURL) = try database.settings(defaultPath: "rangers.sqlite")
        let leaseText = leaseSeconds.map(String.init) ?? environment["RANGERS_LEASE_SECONDS"] ?? "5"
        guard let lease = Int(leaseText) else {
            throw UsageError("leaseSeconds (--lease-seconds or $RANGERS_LEASE_SECONDS): '\(leaseText)' is not a number")
        }
        let configuration = ServerConfiguration(
            gameMasterKey: environment["RANGERS_GAME_MASTER_KEY"] ?? "", apns: try endpointKind(mode),
            databasePath: databasePath, databaseURL: databaseURL,
            nodeID: nodeID ?? environment["RANGERS_NODE_ID"], leaseSeconds: lease,
            host: host ?? environment["RANGERS_HOST"] ?? "127.0.0.1",
            port: port,
            contentDirectory: content.directory,
            pushPolicy: try PolicyEnvironment.configuration(from: environment),
            bundleID: bundleID ?? environment["RANGERS_BUNDLE_ID"] ?? SampleApp.bundleID,
            pushToTalk: pushToTalk, followers: try FollowerEnvironment.settings(from: environment),
            liveLinkSecret: environment["RANGERS_LIVE_LINK_SECRET"])
        let resources: ServerResources
        do {
            resources = try await ServerResources.open(configuration)
        } catch let error as InvalidConfiguration {
            throw UsageError(error)
        }

        let client: APNsClient
        var simulator: APNsSimulator?
        switch configuration.apns {
        case .simulator:
            let started = try await APNsSimulator.start(APNsSimulatorConfiguration(port: 0))
            let key = APNsSigningKey.generate(keyID: "SIMKEY0001", teamID: "SIMTEAM001").key
            try started.registerProviderKey(key)
            let transport = try CurlHTTP2Transport(configuration: CurlTransportConfiguration(caFile: started.certificateFile))
            client = APNsClient(environment: .custom(started.baseURL, management: started.managementBaseURL), key: key, transport: transport,
                                metrics: resources.metricsFactory)
            simulator = started
            print("APNs: THE SIMULATOR inside this process at \(started.baseURL): pushes reach no phone "
                  + "(for Apple's APNs: --apns apple)")
        case .sandbox, .production, .custom:
            client = try connection.client(metrics: resources.metricsFactory, defaultEnvironment: nil)
            print("APNs: \(client.environment.baseURL)")
        }

        if configuration.liveLinkSecret == nil {
            print("Live-page links: signed with a secret made for this process (they stop working when it stops); "
                  + "set RANGERS_LIVE_LINK_SECRET to keep them across restarts and nodes")
        }
        resources.followerChannels.use(client)
        let app = try buildApplication(
            configuration, resources: resources,
            services: backgroundServices(configuration, resources: resources, apns: client),
            onListening: { port in
                print("Listening on http://\(configuration.host):\(port) (database \(configuration.store), node \(resources.store.node))")
                fflush(nil)
            })
        try await app.runService()
        await resources.close()
        await client.shutdown()
        try await simulator?.shutdown()
    }

    /// What `mode` and the connection options name, checked before anything starts.
    private func endpointKind(_ mode: String) throws -> APNsEndpointKind {
        guard mode == "apple" else { return .simulator }
        let environment = try connection.appleEnvironment(default: nil)
        if connection.apnsURL != nil { return .custom }
        return environment == .production ? .production : .sandbox
    }
}
