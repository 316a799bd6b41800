import NIOConcurrencyHelpers

/// The clock a service waits by: the system's monotonic clock when it runs, a
/// test's clock that moves only when told in a test. Wall-clock time (when a
/// tick falls due, when a retry is due) is the services' `now` instead: this one
/// only measures waits and deadlines.
public struct ServiceClock: Sendable {
    private let reading: @Sendable () -> Duration
    private let sleeping: @Sendable (Duration) async throws -> Void

    /// Any clock counted in `Duration` (`ContinuousClock`, a test clock).
    public init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        reading = { origin.duration(to: clock.now) }
        sleeping = { try await clock.sleep(until: clock.now.advanced(by: $0), tolerance: nil) }
    }

    public static let continuous = ServiceClock(ContinuousClock())

    /// Time since the clock was made: compare two readings, never the value alone.
    public var now: Duration { reading() }

    public func sleep(for duration: Duration) async throws { try await sleeping(duration) }

    /// Until `now` reads `deadline` (at once if it already does).
    public func sleep(until deadline: Duration) async throws { try await sleeping(max(.zero, deadline - now)) }
}

extension ServiceClock {
    /// `body`'s value, or nil once `limit` has passed without it: a store whose
    /// server is gone must not hold a stopping node. The body is then cancelled
    /// and left to end by itself; nothing waits for it.
    public func value<T: Sendable>(within limit: Duration, of body: @escaping @Sendable () async throws -> T) async throws -> T? {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T?, any Error>) in
            let waiting = NIOLockedValueBox<CheckedContinuation<T?, any Error>?>(continuation)
            let take: @Sendable () -> CheckedContinuation<T?, any Error>? = {
                waiting.withLockedValue { taken in defer { taken = nil }; return taken }
            }
            let work = Task {
                do {
                    let value = try await body()
                    take()?.resume(returning: value)
                } catch {
                    take()?.resume(throwing: error)
                }
            }
            Task { [self] in
                try? await sleep(for: limit)
                if let continuation = take() {
                    work.cancel()
                    continuation.resume(returning: nil)
                }
            }
        }
    }
}
