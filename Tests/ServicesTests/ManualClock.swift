import NIOConcurrencyHelpers
import Services
import Testing

/// A clock that moves only when the test says: a service's waits end when the
/// test advances past them, so what a test of backoff counts does not depend on
/// how loaded the machine is.
final class ManualClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration

        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var id: Int
        var deadline: Instant
        var wake: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID = 0
        var sleepers: [Sleeper] = []
    }

    private let state = NIOLockedValueBox(State())

    var now: Instant { state.withLockedValue { $0.now } }
    var minimumResolution: Duration { .zero }
    /// How many waits are under way: a service asleep is one.
    var sleeping: Int { state.withLockedValue { $0.sleepers.count } }
    var service: ServiceClock { ServiceClock(self) }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLockedValue { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (wake: CheckedContinuation<Void, any Error>) in
                let due = state.withLockedValue { state in
                    guard deadline > state.now, !Task.isCancelled else { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, wake: wake))
                    return false
                }
                if due { wake.resume() }
            }
        } onCancel: {
            let cancelled = state.withLockedValue { state in
                defer { state.sleepers.removeAll { $0.id == id } }
                return state.sleepers.first { $0.id == id }
            }
            cancelled?.wake.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }

    /// Moves the clock on, waking every wait that has come to its end.
    func advance(by duration: Duration) {
        let woken = state.withLockedValue { state in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            defer { state.sleepers.removeAll { $0.deadline <= now } }
            return state.sleepers.filter { $0.deadline <= now }
        }
        for sleeper in woken { sleeper.wake.resume() }
    }

    /// Moves the clock on `steps` times by `step`, each time once the service
    /// waits again (a real second at most per wait, else the service is stuck).
    func step(_ steps: Int, by step: Duration, service: String) async throws {
        for _ in 0..<steps {
            let waitingSince = ContinuousClock.now
            while sleeping == 0 {
                try #require(ContinuousClock.now - waitingSince < .seconds(20), "the \(service) never waits")
                try await Task.sleep(for: .milliseconds(1))
            }
            advance(by: step)
        }
    }
}
