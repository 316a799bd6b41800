import Foundation
import Logging
import Metrics
import PushPolicy
import ServiceLifecycle
import Store
import Vocabulary

/// Looks after the followers' channels on every node: makes those followers want
/// that nobody is making (a failed attempt's retry, a maker that stopped, room
/// again under the limit), deletes those whose adventure's end was sent and
/// dismissed, and at start and then every half `unknownChannelGrace` deletes the
/// app's channels that no node knows (see `FollowerChannels.unknownChannels`).
///
/// A pass that fails (the store, or APNs refusing the app's channel management:
/// `Forbidden` for a wrong key, `FeatureNotEnabled` for an app without the
/// broadcast capability) is said once, and the next pass waits twice as long as
/// the one before, up to `longestBackoff`: asking again every two seconds would
/// only repeat the refusal.
public struct ChannelKeeper: Service {
    public static let longestBackoff: Duration = .seconds(600)

    private let channels: FollowerChannels
    private let settings: FollowerSettings
    /// The app's bundle id: the channels are the app's.
    private let bundleID: String
    /// When an ended adventure's activities leave the Lock Screen: its channels are deleted after.
    private let policy: PushPolicyConfiguration
    private let now: @Sendable () -> Date
    private let clock: ServiceClock
    private let loop: LoopReporter
    private let health: ServiceHealth

    public init(channels: FollowerChannels, settings: FollowerSettings, bundleID: String, policy: PushPolicyConfiguration,
                now: @escaping @Sendable () -> Date = Date.init, clock: ServiceClock = .continuous,
                health: ServiceHealth = ServiceHealth(), metrics: any MetricsFactory = MetricsSystem.factory) {
        self.channels = channels
        self.settings = settings
        self.bundleID = bundleID
        self.policy = policy
        self.now = now
        self.clock = clock
        self.health = health
        loop = LoopReporter(loop: "channelKeeper", health: health, logger: Logger(label: "rangers.channel-keeper"),
                            metrics: metrics, now: now)
    }

    public func run() async throws {
        var sweeper = Sweeper(grace: settings.unknownChannelGrace.seconds)
        await loop.repeatedly("cannot look after the followers' channels", clock: clock, wait: { wait }) {
            try await pass(&sweeper)
        }
    }

    /// The keeper's interval, doubled per failed pass in a row, at most `longestBackoff`.
    var wait: Duration {
        let failures = health.current["channelKeeper"]?.failures ?? 0
        return min(Self.longestBackoff, settings.keeperInterval * (1 << min(failures, 20)))
    }

    /// One look: make, delete, and sweep when it is time.
    func pass(_ sweeper: inout Sweeper) async throws {
        try await channels.makeWanted(bundleID: bundleID, channelLimit: settings.channelLimit)
        let second = Int(now().timeIntervalSince1970)
        try await channels.deleteDone(endedBy: policy.latestEndDismissed(by: second),
                                      bundleID: bundleID)
        guard settings.deletesUnknownChannels, sweeper.isDue(at: now()) else { return }
        guard let unknown = try await channels.unknownChannels(bundleID: bundleID) else { return }
        for channel in sweeper.toDelete(unknown, at: now()) {
            _ = await channels.deleteUnknown(channel, bundleID: bundleID)
        }
    }

    /// When to sweep and which unknown channels are old enough to delete.
    struct Sweeper {
        let grace: TimeInterval
        private var lastSweep: Date?
        /// Unknown channels seen while another was being made, with when first seen.
        private var suspects: [BroadcastChannelID: Date] = [:]

        init(grace: TimeInterval) { self.grace = grace }

        func isDue(at now: Date) -> Bool { lastSweep.map { now.timeIntervalSince($0) >= grace / 2 } ?? true }

        mutating func toDelete(_ unknown: FollowerChannels.Unknown, at now: Date) -> Set<BroadcastChannelID> {
            lastSweep = now
            suspects = suspects.filter { unknown.suspect.contains($0.key) }
            var delete = unknown.deletable
            for channel in unknown.suspect {
                if let first = suspects[channel] {
                    if now.timeIntervalSince(first) >= grace { delete.insert(channel) }
                } else {
                    suspects[channel] = now
                }
            }
            for channel in delete { suspects[channel] = nil }
            return delete
        }
    }
}
