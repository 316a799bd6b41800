import NIOConcurrencyHelpers

/// Tells this process's dispatcher that pushes were just queued, so it claims them
/// at once rather than at its next look at the outbox: a tick's pushes, a
/// walkie-talkie message's, leave as soon as they are stored. Pushes queued on
/// another node are found at the dispatcher's next look (`Dispatcher.Settings.idleWait`).
///
/// A signal given while no one waits is kept for the next wait, so none is lost
/// between two looks.
public final class PushesQueued: Sendable {
    private struct State {
        var signalled = false
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = NIOLockedValueBox(State())

    public init() {}

    /// Pushes were queued: wakes whoever waits, or the next to wait.
    public func signal() {
        let waiters = state.withLockedValue { state in
            defer { state.waiters = [:] }
            if state.waiters.isEmpty { state.signalled = true }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once pushes are queued (at once if they were since the last wait
    /// returned), or once the task is cancelled.
    public func wait() async {
        let id = state.withLockedValue { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLockedValue { state in
                    if state.signalled {
                        state.signalled = false
                        return true
                    }
                    if Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLockedValue { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
