import APNs
import APNsCurl
import APNsSimulator
import BrowserTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import PushPolicy
import Server
import ServiceLifecycle
import Store
import StoreTestSupport
import Vocabulary
import Services

/// What `rangers serve` runs (the HTTP API, the ticker, the dispatcher) in this
/// process on a real port that a browser reaches, over a SQLite file, pushing to
/// the APNs simulator over TLS through libcurl. It can be stopped and started
/// again on the same port and file, as a restarted server would be. The clock is
/// the test's: ticks come when it moves.
final class LivePageServer: @unchecked Sendable {
    static let liveLinkSecret = "live-page-tests-secret-0123456789abcdef"

    /// Just before the end of the start's second, as in `DeliveryHarness`: each whole
    /// second the test moves on brings the next tick due whatever its phase.
    let clock = ManualClock(TestServer.startTime.addingTimeInterval(0.999))
    let database: TestDatabase
    private(set) var configuration: ServerConfiguration
    let apns: APNsEndpoint
    var simulator: APNsSimulator { apns.simulator! }
    var client: APNsClient { apns.client }
    private(set) var resources: ServerResources?
    private var group: ServiceGroup?
    private var running: Task<Void, any Error>?

    var store: any RangersStore { resources!.store }
    var base: String { "http://127.0.0.1:\(configuration.port)" }

    private init(database: TestDatabase, configuration: ServerConfiguration, apns: APNsEndpoint) {
        self.database = database
        self.configuration = configuration
        self.apns = apns
    }

    /// `policy`: what the pushes' stale dates are made of.
    static func start(policy: PushPolicyConfiguration) async throws -> LivePageServer {
        let database = try await StoreEngine.sqlite.database()
        var configuration = ServerConfiguration(
            gameMasterKey: TestServer.gameMasterKey, apns: .simulator, databasePath: database.location, port: 0,
            contentDirectory: TestServer.contentDirectory, pushPolicy: policy, bundleID: TestServer.bundleID,
            followers: DeliveryHarness.followerSettings, liveLinkSecret: liveLinkSecret,
            ticker: Ticker.Settings(longestWait: .milliseconds(2), gatherInterval: .zero), dispatcher: Dispatcher.Settings(maximumInFlight: 8, idleWait: .milliseconds(2)))
        configuration.limits = TestServer.unlimited
        // One attempt per claim: an answer to try later goes back to the outbox, where the page sees it wait.
        // The management API too: followers' channels are made on it.
        let apns = try await APNsEndpoint.simulator(APNsSimulatorConfiguration(), retry: APNsRetryPolicy(maximumAttempts: 1))
        let server = LivePageServer(database: database, configuration: configuration, apns: apns)
        try await server.run()
        return server
    }

    /// Runs `body` with a server started with `policy` and a headless Chromium,
    /// closing both whatever happens.
    static func withBrowser(policy: PushPolicyConfiguration, _ body: (LivePageServer, DevToolsBrowser) async throws -> Void) async throws {
        guard Chromium.executable() != nil else { throw Chromium.Missing() }
        let server = try await start(policy: policy)
        let browser: DevToolsBrowser
        do {
            browser = try DevToolsBrowser.launch(profile: try ScratchFiles.newDirectory().appendingPathComponent("profile"))
        } catch {
            await server.shutdown()
            throw error
        }
        do {
            try await body(server, browser)
        } catch {
            await browser.close()
            await server.shutdown()
            throw error
        }
        await browser.close()
        await server.shutdown()
    }

    /// Opens the store and serves: on the port it had before, or a free one the first time.
    func run() async throws {
        let resources = try await ServerResources.open(configuration, now: { [clock] in clock.now })
        let listening = PortReport()
        let app = try buildApplication(configuration, resources: resources, apns: apns, onListening: { listening.set($0) })
        let group = ServiceGroup(configuration: .init(services: [app], logger: Logger(label: "rangers.tests.live")))
        self.resources = resources
        self.group = group
        let running = Task {
            do {
                try await group.run()
            } catch {
                listening.fail(error)
                throw error
            }
        }
        self.running = running
        try await eventually("the server to listen on port \(configuration.port)", within: .seconds(20)) {
            // A failed start (the port taken) ends the group: say why, not that time ran out.
            if let failure = listening.failure { throw failure }
            return listening.port != nil
        }
        configuration.port = listening.port!
    }

    /// A graceful stop, as SIGTERM: the page's streams end, the outbox drains, the store closes.
    func stop() async throws {
        await group?.triggerGracefulShutdown()
        try await running?.value
        if let resources { await resources.close() }
        group = nil
        running = nil
    }

    func shutdown() async {
        try? await stop()
        await apns.shutdown()
    }

    /// JSON over HTTP to the server's port, as the apps and the game master send it.
    @discardableResult
    func call(_ method: String, _ path: String, key: String? = nil, body: [String: Any]? = nil) async throws -> [String: Any] {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        if let key { request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            throw RequestRefused(description: "\(method) \(path): \(status) \(String(decoding: data, as: UTF8.self))")
        }
        return (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }
}

struct RequestRefused: Error, CustomStringConvertible {
    var description: String
}

/// The port the server reports once it listens.
final class PortReport: @unchecked Sendable {
    private let lock = NSLock()
    private var reported: Int?
    private var failed: (any Error)?

    func set(_ port: Int) { lock.withLock { reported = port } }

    var port: Int? { lock.withLock { reported } }

    func fail(_ error: any Error) { lock.withLock { failed = error } }

    var failure: (any Error)? { lock.withLock { failed } }
}
