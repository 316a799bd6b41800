import Foundation
import Logging
import Metrics
import ServiceLifecycle
import Store

/// Deletes recorded messages' audio once it is older than the retention, keeping
/// the record that they were sent.
public struct AudioRetention: Service {
    private let store: any WalkieTalkieStore
    private let retention: Duration
    private let now: @Sendable () -> Date
    private let clock: ServiceClock
    private let loop: LoopReporter

    public init(store: any WalkieTalkieStore, retention: Duration, now: @escaping @Sendable () -> Date = Date.init,
                clock: ServiceClock = .continuous, health: ServiceHealth = ServiceHealth(),
                metrics: any MetricsFactory = MetricsSystem.factory) {
        self.store = store
        self.retention = retention
        self.now = now
        self.clock = clock
        loop = LoopReporter(loop: "audioRetention", health: health, logger: Logger(label: "rangers.audio-retention"),
                            metrics: metrics, now: now)
    }

    /// How often to look: often enough that audio outlives its retention by at most a tenth of it.
    var interval: Duration { min(retention / 10, .seconds(600)) }

    public func run() async throws {
        await loop.repeatedly("cannot delete expired audio", clock: clock, wait: { interval }) { try await deleteExpiredAudio() }
    }

    @discardableResult
    public func deleteExpiredAudio() async throws -> Int {
        try await store.deleteAudio(recordedBefore: now().addingTimeInterval(-retention.seconds), at: now())
    }
}
