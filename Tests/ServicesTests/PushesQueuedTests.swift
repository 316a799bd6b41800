import Foundation
import NIOConcurrencyHelpers
import Services
import StoreTestSupport
import Testing

/// Pushes queued in the process wake the dispatcher at once, not at its next look
/// at the outbox; a signal given while nobody waits is kept for the next wait.
@Suite(.closesStores) struct PushesQueuedTests {
    @Test func aSignalWakesTheWaiterOrIsKeptForTheNextWaitAndIsSpentOnce() async throws {
        let queued = PushesQueued()
        queued.signal()
        #expect(try await returns { await queued.wait() }, "the wait after a signal returns at once")

        let waiting = Waiting(queued)
        try await Task.sleep(for: .milliseconds(50))
        #expect(!waiting.returned, "the signal was spent by the first wait")
        queued.signal()
        try await until("the waiter is woken") { waiting.returned }

        let cancelled = Waiting(queued)
        try await Task.sleep(for: .milliseconds(50))
        #expect(!cancelled.returned)
        cancelled.task.cancel()
        try await until("a cancelled wait returns") { cancelled.returned }
    }

    /// The dispatcher, asleep on a clock that never moves, would not look at the
    /// outbox again: the tick's pushes leave because the signal says they were queued.
    @Test(arguments: StoreEngine.available) func theDispatcherSendsPushesAtOnceWhenToldTheyWereQueued(engine: StoreEngine) async throws {
        let rig = try await DispatcherRig(engine)
        let queued = PushesQueued()
        let clock = ManualClock()
        try await rig.running(Dispatcher.Settings(idleWait: .seconds(1)), clock: clock.service, pushesQueued: queued) {
            try await until("the dispatcher's first look done, and asleep") { clock.sleeping == 1 }
            try await rig.store.playNextTick(of: rig.adventure.id) { _ in rig.activities.map { update($0, tick: 1) } }
            try await Task.sleep(for: .milliseconds(100))
            #expect(rig.sender.sent.isEmpty, "nothing sent before the signal")
            queued.signal()
            try await rig.eventually("the three pushes sent") { rig.sender.sent.count == 3 }
            try await rig.eventually("all recorded") { try await rig.states() == ["sent", "sent", "sent"] }
        }
    }

    /// A wait under way, and whether it has returned.
    private final class Waiting: Sendable {
        let task: Task<Void, Never>
        private let done: NIOLockedValueBox<Bool>
        var returned: Bool { done.withLockedValue { $0 } }

        init(_ queued: PushesQueued) {
            let done = NIOLockedValueBox(false)
            self.done = done
            task = Task {
                await queued.wait()
                done.withLockedValue { $0 = true }
            }
        }
    }

    private func returns(_ body: @escaping @Sendable () async -> Void) async throws -> Bool {
        let done = Task { await body() }
        let timeout = Task { try await Task.sleep(for: .seconds(5)); done.cancel() }
        defer { timeout.cancel() }
        await done.value
        return !done.isCancelled
    }

    private func until(_ what: String, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw TimedOut(what: what) }
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}
