import Foundation
import Logging
import Metrics
import NIOConcurrencyHelpers
import ServiceLifecycle

/// What each background loop last saw: working, or in trouble since when and
/// why. The readiness route shows it, `rangers_loop_in_trouble{loop}` counts it,
/// and each loop says its trouble in the log once per change of state (the first
/// failure, another reason, the recovery) rather than at every try.
public final class ServiceHealth: Sendable {
    public struct Trouble: Sendable, Hashable {
        public var since: Date
        public var reason: String
        /// Tries that failed since `since`.
        public var failures: Int
    }

    private let troubles = NIOLockedValueBox<[String: Trouble]>([:])

    public init() {}

    /// Every loop in trouble now, by name.
    public var current: [String: Trouble] { troubles.withLockedValue { $0 } }

    /// Records a failure; true when it is news (the first, or another reason than before).
    public func failed(_ loop: String, reason: String, at now: Date) -> Bool {
        troubles.withLockedValue { troubles in
            guard var trouble = troubles[loop], trouble.reason == reason else {
                troubles[loop] = Trouble(since: troubles[loop]?.since ?? now, reason: reason, failures: (troubles[loop]?.failures ?? 0) + 1)
                return true
            }
            trouble.failures += 1
            troubles[loop] = trouble
            return false
        }
    }

    /// Records a success; the trouble it ends, if there was one.
    public func recovered(_ loop: String) -> Trouble? {
        troubles.withLockedValue { $0.removeValue(forKey: loop) }
    }
}

/// One loop's voice: it logs a failure when it is news and the recovery when it
/// comes, keeps `ServiceHealth` and the metric current, and is quiet in between.
struct LoopReporter: Sendable {
    let loop: String
    let health: ServiceHealth
    let logger: Logger
    let metrics: any MetricsFactory
    let now: @Sendable () -> Date

    /// `what` says what failed ("cannot record answers and claim pushes"); the
    /// error's description is the reason, so a different error is news again.
    func failed(_ what: String, _ error: any Error, metadata: Logger.Metadata = [:]) {
        let reason = "\(what): \(error)"
        guard health.failed(loop, reason: reason, at: now()) else { return }
        logger.error("\(what); trying again, and saying so once it works", metadata: metadata.merging(["error": "\(error)"]) { $1 })
        Gauge(label: "rangers_loop_in_trouble", dimensions: [("loop", loop)], factory: metrics).record(1)
    }

    /// A background loop: `pass` until the service stops, `wait()` after each,
    /// a failure said as `failed(what, …)` and the recovery as `succeeded()`.
    func repeatedly(_ what: String, clock: ServiceClock, wait: () -> Duration, _ pass: () async throws -> Void) async {
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            do {
                try await pass()
                succeeded()
            } catch is CancellationError {
                return
            } catch {
                failed(what, error)
            }
            do {
                let wait = wait()
                try await cancelWhenGracefulShutdown { try await clock.sleep(for: wait) }
            } catch {
                return
            }
        }
    }

    func succeeded() {
        guard let trouble = health.recovered(loop) else { return }
        logger.notice("works again", metadata: [
            "after": "\(trouble.failures) failed tries", "since": "\(Int(now().timeIntervalSince(trouble.since))) s",
        ])
        Gauge(label: "rangers_loop_in_trouble", dimensions: [("loop", loop)], factory: metrics).record(0)
    }
}
