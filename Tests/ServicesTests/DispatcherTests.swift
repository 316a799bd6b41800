import APNs
import Foundation
import Logging
import MetricsTestKit
import NIOConcurrencyHelpers
import PushVocabulary
import ServiceLifecycle
import Services
import Store
import StoreTestSupport
import Testing
import Vocabulary

/// The dispatcher's rules, with APNs' answers given by an in-memory sender: what
/// goes out, what a dead token stops, what is tried again and when, what a newer
/// push replaces, and that a graceful stop sends what is left first.
@Suite(.closesStores) struct DispatcherTests {
    @Test(arguments: StoreEngine.available) func eachQueuedPushGoesOutOnceAndIsRecordedSent(engine: StoreEngine) async throws {
        let rig = try await DispatcherRig(engine)
        try await rig.store.playNextTick(of: rig.adventure.id) { _ in rig.activities.enumerated().map { update($1, tick: 1, alert: $0 == 0) } }
        try await rig.running {
            try await rig.eventually("three pushes answered") { rig.sender.sent.count == 3 }
            try await rig.eventually("all recorded") { try await rig.states() == ["sent", "sent", "sent"] }
        }
        let sent = rig.sender.sent.map(\.request)
        #expect(Set(sent.map(\.deviceToken)) == Set((0..<3).map { Tokens.make($0).hex }))
        #expect(sent.allSatisfy { $0.pushType == .liveactivity && $0.topic.rawValue == "app.rangers.push-type.liveactivity" })
        #expect(sent.first { $0.deviceToken == Tokens.make(0).hex }?.priority == 10, "the alert at priority 10")
        #expect(sent.filter { $0.priority == 5 }.count == 2, "the routine updates at 5")
        #expect(try await rig.store.pushLog(of: rig.adventure.id).allSatisfy { $0.status == 200 })
    }

    /// A push's lag runs from the tick that queued it to APNs accepting it, not
    /// from its claim: here the tick was stored 30 s before the dispatcher runs.
    @Test(arguments: StoreEngine.available) func eachDeliveredPushCountsItsLagFromTheTickThatQueuedIt(engine: StoreEngine) async throws {
        let rig = try await DispatcherRig(engine)
        let dead = Tokens.make(2)
        rig.sender.answer { [wall = rig.wall] request in
            request.deviceToken == dead.hex ? .unregistered(since: wall.now) : APNsResponse(status: 200)
        }
        let decided = rig.wall.now.addingTimeInterval(-30)
        try await rig.store.playNextTick(of: rig.adventure.id, outbox: { _ in rig.activities.map { update($0, tick: 1) } }, at: decided)
        let metrics = TestMetrics()
        try await rig.running(metrics: metrics) {
            try await rig.eventually("all recorded") { try await rig.states() == ["sent", "sent", "failed"] }
        }
        let lags = try metrics.expectTimer("rangers_push_lag_seconds").values.map { Double($0) / 1e9 }
        #expect(lags.count == 2, "the two delivered pushes, not the one answered Unregistered")
        let latest = rig.wall.now.timeIntervalSince(decided)
        #expect(lags.allSatisfy { $0 >= 30 && $0 <= latest }, "\(lags) outside 30…\(latest) s")
    }

    @Test(arguments: StoreEngine.available) func aTokenAnsweredUnregisteredIsInvalidatedAndGetsNothingMore(engine: StoreEngine) async throws {
        let rig = try await DispatcherRig(engine)
        let dead = Tokens.make(1)
        rig.sender.answer { [wall = rig.wall] request in
            request.deviceToken == dead.hex ? .unregistered(since: wall.now) : APNsResponse(status: 200)
        }
        try await rig.store.playNextTick(of: rig.adventure.id) { _ in rig.activities.map { update($0, tick: 1) } }
        try await rig.running {
            try await rig.eventually("the first tick's pushes recorded") { try await rig.states().allSatisfy { $0 != "pending" && $0 != "sending" } }
            try await rig.store.playNextTick(of: rig.adventure.id) { _ in rig.activities.map { update($0, tick: 2) } }
            try await rig.eventually("the second tick's pushes answered") { rig.sender.sent.count == 5 }
            try await rig.eventually("all recorded") {
                let states = try await rig.states()
                return states.count == 6 && !states.contains("pending") && !states.contains("sending")
            }
        }
        #expect(rig.sender.sent(to: dead).count == 1, "one 410, then nothing more to that token")
        #expect(try await rig.store.liveActivity(rig.activities[1]).token == nil)
        let deadRows = try await rig.store.outbox(of: rig.adventure.id).filter { $0.message.target == .liveActivity(rig.activities[1]) }
        #expect(deadRows.map(\.state) == [.failed, .dropped])
    }

    @Test(arguments: StoreEngine.available) func tryLaterIsClaimedAgainWithBackoffAndGivenUpAfterTheLastClaim(engine: StoreEngine) async throws {
        let rig = try await DispatcherRig(engine)
        rig.sender.answer { _ in .serviceUnavailable }
        try await rig.store.playNextTick(of: rig.adventure.id) { _ in [update(rig.activities[0], tick: 1, alert: true)] }
        let settings = Dispatcher.Settings(idleWait: .milliseconds(2), maximumClaims: 3, firstRetryWait: 100, longestRetryWait: 3000)
        try await rig.running(settings) {
            try await rig.eventually("the first try") { rig.sender.sent.count == 1 }
            try await rig.eventually("a retry is scheduled") { try await rig.store.nextOutboxAttemptAt() != nil }
            // Not again before the wait: 100 s after the first answer, then 200 s.
            rig.wall.advance(by: 95)
            try await Task.sleep(for: .milliseconds(50))
            #expect(rig.sender.sent.count == 1)
            rig.wall.advance(by: 6)
            try await rig.eventually("the second try") { rig.sender.sent.count == 2 }
            try await rig.eventually("its retry is scheduled") { try await rig.store.nextOutboxAttemptAt() ?? .distantPast > rig.wall.now }
            rig.wall.advance(by: 190)
            try await Task.sleep(for: .milliseconds(50))
            #expect(rig.sender.sent.count == 2)
            rig.wall.advance(by: 11)
            try await rig.eventually("the third and last try") { rig.sender.sent.count == 3 }
            try await rig.eventually("given up") { try await rig.states() == ["failed"] }
        }
        let row = try #require(try await rig.store.outbox(of: rig.adventure.id).first)
        #expect(row.outcome == "gave up after 3 attempts: ServiceUnavailable")
        #expect(row.attempts == 3)
    }

    @Test(arguments: StoreEngine.available) func anOlderPushWaitingToBeTriedAgainIsReplacedByANewerOne(engine: StoreEngine) async throws {
        let rig = try await DispatcherRig(engine)
        let first = NIOLockedValueBox(true)
        rig.sender.answer { _ in first.withLockedValue { was in defer { was = false }; return was } ? .serviceUnavailable : APNsResponse(status: 200) }
        try await rig.store.playNextTick(of: rig.adventure.id) { _ in [update(rig.activities[0], tick: 1)] }
        try await rig.running {
            // Answered and waiting for its retry: before that, tick 2 would supersede it unsent.
            try await rig.eventually("tick 1 answered try later") {
                guard !rig.sender.sent.isEmpty else { return false }
                return try await rig.states() == ["pending"]
            }
            try await rig.store.playNextTick(of: rig.adventure.id) { _ in [update(rig.activities[0], tick: 2)] }
            rig.wall.advance(by: 3600)
            try await rig.eventually("tick 2 sent") { try await rig.states() == ["superseded", "sent"] }
        }
        #expect(rig.sender.sent.map { String(decoding: $0.request.payload, as: UTF8.self).contains(#""timestamp":2"#) } == [false, true])
    }

    @Test(arguments: StoreEngine.available) func aGracefulStopSendsWhatIsQueuedFirst(engine: StoreEngine) async throws {
        let rig = try await DispatcherRig(engine)
        rig.sender.answer { _ in
            try await Task.sleep(for: .milliseconds(200))
            return APNsResponse(status: 200)
        }
        try await rig.store.playNextTick(of: rig.adventure.id) { _ in rig.activities.map { update($0, tick: 1) } }
        try await rig.running(Dispatcher.Settings(maximumInFlight: 1, idleWait: .milliseconds(2))) {
            try await rig.eventually("the first push on the wire") { try await rig.states().contains("sending") }
        }
        #expect(try await rig.states() == ["sent", "sent", "sent"], "the stop waited for all three")
        #expect(rig.sender.sent.count == 3)
    }
}

/// A running adventure of three on a real store, a dispatcher over it whose
/// pushes an in-memory sender answers, and a wall clock the test moves.
struct DispatcherRig: Sendable {
    let store: any RangersStore
    let adventure: StoredAdventure
    let activities: [ActivityID]
    let sender = InMemoryPushSender()
    let wall = WallClock()

    init(_ engine: StoreEngine) async throws {
        (store, _, adventure, activities) = try await engine.runningAdventure()
    }

    /// The adventure's outbox rows' states, oldest first.
    func states() async throws -> [String] {
        try await store.outbox(of: adventure.id).map(\.state.rawValue)
    }

    /// Runs the dispatcher while `body` runs, then stops it as SIGTERM would and
    /// waits until it has.
    func running(_ settings: Dispatcher.Settings = Dispatcher.Settings(idleWait: .milliseconds(2)), metrics: TestMetrics = TestMetrics(),
                 _ body: @Sendable () async throws -> Void) async throws {
        let dispatcher = Dispatcher(store: store, client: sender, settings: settings, now: { [wall] in wall.now }, metrics: metrics)
        let group = ServiceGroup(configuration: .init(services: [dispatcher], logger: Logger(label: "rangers.tests")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            do {
                try await body()
            } catch {
                await group.triggerGracefulShutdown()
                try? await tasks.waitForAll()
                throw error
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    /// Polls until `condition` holds, failing after `limit`.
    func eventually(_ what: String, within limit: Duration = .seconds(10), _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + limit
        while try await !condition() {
            guard ContinuousClock.now < deadline else { throw TimedOut(what: what) }
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}

struct TimedOut: Error, CustomStringConvertible {
    var what: String
    var description: String { "timed out waiting for \(what)" }
}

/// Wall-clock time as the services read it (`now`): the real time plus what the
/// test moved it on by, so what a fixture queues at the real time is always due.
final class WallClock: Sendable {
    private let offset = NIOLockedValueBox<TimeInterval>(1)

    var now: Date { Date().addingTimeInterval(offset.withLockedValue { $0 }) }

    func advance(by seconds: TimeInterval) { offset.withLockedValue { $0 += seconds } }
}

/// A stop whose drain runs out of time: the dispatcher stops all the same,
/// leaves what it held claimed (it goes back to pending once the claims expire),
/// and says how many.
@Suite(.closesStores) struct DispatcherDrainTests {
    @Test(arguments: StoreEngine.available) func aDrainThatRunsOutOfTimeStopsAndSaysHowManyItLeft(engine: StoreEngine) async throws {
        let rig = try await DispatcherRig(engine)
        // APNs never answers.
        rig.sender.answer { _ in
            try await Task.sleep(for: .seconds(3600))
            return APNsResponse(status: 200)
        }
        try await rig.store.playNextTick(of: rig.adventure.id) { _ in rig.activities.map { update($0, tick: 1) } }
        let started = ContinuousClock.now
        let left = await #expect(throws: PushesLeftUnsent.self) {
            try await rig.running(Dispatcher.Settings(idleWait: .milliseconds(2), drainTime: .milliseconds(300))) {
                try await rig.eventually("the pushes on the wire") { try await rig.states() == ["sending", "sending", "sending"] }
            }
        }
        #expect(left?.count == 3)
        #expect(ContinuousClock.now - started < .seconds(5), "stopped at its deadline, not when APNs answered")
        #expect(try await rig.states() == ["sending", "sending", "sending"], "still claimed: they go back once the claims expire")
    }
}
