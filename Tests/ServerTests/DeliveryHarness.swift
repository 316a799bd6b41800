import APNs
import APNsCurl
import APNsSimulator
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Server
import ServiceLifecycle
import Services
import Store
import StoreTestSupport
import Testing
import Vocabulary

/// A clock the test moves by hand: the API, the ticker and the dispatcher all read
/// it, so an adventure's ticks come exactly when the test says.
final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    init(_ start: Date) { current = start }

    var now: Date { lock.withLock { current } }

    func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }
}

/// When something happened, by the wall clock, as the simulator records arrivals.
final class WallClockMark: @unchecked Sendable {
    private let lock = NSLock()
    private var marked: Date?

    func mark() { lock.withLock { marked = Date() } }
    var date: Date? { lock.withLock { marked } }
}

struct TimedOut: Error, CustomStringConvertible {
    var what: String
    var description: String { "timed out waiting for \(what)" }
}

/// Polls `condition` until it holds; fails the test when `limit` passes first.
func eventually(_ what: String, within limit: Duration = .seconds(20),
                _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + limit
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw TimedOut(what: what) }
        try await Task.sleep(for: .milliseconds(2))
    }
}

/// The server's parts over a real store (a SQLite file or a PostgreSQL database of
/// the tests' own server), and the real APNs simulator reached over TLS and HTTP/2
/// through the curl transport. The ticker and the dispatcher
/// run in a service group, as in `rangers serve`.
struct DeliveryHarness: Sendable {
    let clock: ManualClock
    let database: TestDatabase
    let configuration: ServerConfiguration
    let resources: ServerResources
    let simulator: APNsSimulator
    let client: APNsClient
    var store: any RangersStore { resources.store }

    /// The channel keeper looks every 20 ms here, so what it does follows the test's clock closely.
    static let followerSettings = FollowerSettings(keeperInterval: .milliseconds(20), channelWait: .milliseconds(200))

    static func start(_ engine: StoreEngine, followers: FollowerSettings = followerSettings) async throws -> DeliveryHarness {
        let database = try await engine.database()
        var configuration = ServerConfiguration(
            gameMasterKey: TestServer.gameMasterKey, apns: .simulator, databasePath: engine == .sqlite ? database.location : "unused.sqlite",
            databaseURL: engine == .postgres ? database.location : nil,
            port: 0, contentDirectory: TestServer.contentDirectory, bundleID: TestServer.bundleID, followers: followers,
            // No pause to gather ticks: the test moves the clock a tick at a time, and
            // each pause would only add its length to every tick.
            ticker: Ticker.Settings(longestWait: .milliseconds(2), gatherInterval: .zero),
            dispatcher: Dispatcher.Settings(maximumInFlight: 8, idleWait: .milliseconds(2)))
        configuration.limits = TestServer.unlimited
        // Just before the end of the start's second: the adventure starts in that
        // second, and each whole second the test moves on brings the next tick due
        // whatever its phase (`TickSchedule`).
        let clock = ManualClock(TestServer.startTime.addingTimeInterval(0.999))
        let resources = try await ServerResources.open(configuration, now: { clock.now })
        // One attempt per claim: a failure goes back to the outbox and the
        // dispatcher's own retry is what is tested.
        let endpoint = try await APNsEndpoint.simulator(APNsSimulatorConfiguration(), retry: APNsRetryPolicy(maximumAttempts: 1),
                                                        metrics: resources.metricsFactory)
        resources.followerChannels.use(endpoint.client)
        return DeliveryHarness(clock: clock, database: database, configuration: configuration, resources: resources,
                               simulator: endpoint.simulator!, client: endpoint.client)
    }

    func shutdown() async {
        await client.shutdown()
        try? await simulator.shutdown()
        await resources.close()
    }

    /// Starts a harness, runs `body` with it, and shuts it down before returning,
    /// whether `body` succeeded or threw: no test leaves a client or simulator behind.
    static func run<Value>(_ engine: StoreEngine = .sqlite, followers: FollowerSettings = followerSettings,
                           _ body: (DeliveryHarness) async throws -> Value) async throws -> Value {
        let harness = try await start(engine, followers: followers)
        do {
            let value = try await body(harness)
            await harness.shutdown()
            return value
        } catch {
            await harness.shutdown()
            throw error
        }
    }

    /// The HTTP API through Hummingbird's in-process client.
    func api<Value: Sendable>(_ body: @escaping @Sendable (API) async throws -> Value) async throws -> Value {
        // Over a real port and real HTTP, as an app would talk to the server.
        let app = try buildApplication(configuration, resources: resources)
        return try await app.test(.live) { client in try await body(API(client: client)) }
    }

    /// Runs `body` with the ticker and the dispatcher running, then shuts them down
    /// gracefully, as SIGTERM would, and waits until they have stopped.
    func withServices<Value: Sendable>(drainTime: Duration = .seconds(10),
                                       _ body: @Sendable () async throws -> Value) async throws -> Value {
        var configuration = configuration
        configuration.dispatcher.drainTime = drainTime
        let services = backgroundServices(configuration, resources: resources, apns: client)
        let group = ServiceGroup(configuration: .init(services: services, logger: Logger(label: "rangers.tests")))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let value: Value
            do {
                value = try await body()
            } catch {
                await group.triggerGracefulShutdown()
                try? await tasks.waitForAll()
                throw error
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return value
        }
    }

    /// The adventure is at `tick` (or has ended) and every push due now has been
    /// answered. Pushes waiting to be retried later do not count.
    func isSettled(_ adventure: AdventureID, at tick: Int) async throws -> Bool {
        try await store.isSettled(adventure, at: tick)
    }

    /// Moves the clock a second at a time until the adventure ends, waiting after
    /// each second for its tick to be stored and its pushes answered, so each
    /// activity's pushes go out one after another. `afterTick` runs once per tick.
    @discardableResult
    func playToEnd(_ adventure: AdventureID, afterTick: (Int) async throws -> Void = { _ in }) async throws -> Int {
        var stored = try await store.adventure(adventure)
        var seen = stored.lastTick
        while stored.status == .running {
            clock.advance(by: 1)
            let elapsed = Int(clock.now.timeIntervalSince1970) - stored.startedAt
            let tick = elapsed / stored.setup.tickInterval
            try await eventually("tick \(tick) of adventure \(adventure) and its pushes") {
                try await isSettled(adventure, at: tick)
            }
            stored = try await store.adventure(adventure)
            if stored.lastTick != seen {
                seen = stored.lastTick
                try await afterTick(seen)
            }
        }
        return stored.lastTick
    }
}

extension RangersStore {
    /// The adventure is at `tick` (or has ended) and every push due now has been
    /// answered. Pushes waiting to be retried later do not count.
    func isSettled(_ adventure: AdventureID, at tick: Int) async throws -> Bool {
        let stored = try await self.adventure(adventure)
        guard stored.lastTick == tick || stored.status != .running else { return false }
        // Nothing waiting anywhere answers it without reading the adventure's every push.
        if try await pendingOutboxCount() == 0 { return true }
        return try await outbox(of: adventure).allSatisfy { entry in
            switch entry.state {
            case .sending: false
            case .pending: entry.outcome?.hasPrefix("retrying") == true
            default: true
            }
        }
    }
}

extension RecordedPush {
    var aps: [String: Any] {
        ((try? JSONSerialization.jsonObject(with: payload)) as? [String: Any])?["aps"] as? [String: Any] ?? [:]
    }

    var event: String? { aps["event"] as? String }
    var timestamp: Int? { aps["timestamp"] as? Int }
}
