import APNs
import Foundation
import Metrics
import NIOConcurrencyHelpers
import PushPolicy
import PushVocabulary
import Services
import StoreTestSupport
import Testing

/// An APNs whose channel management refuses this app (no broadcast capability:
/// `FeatureNotEnabled`): the keeper backs off rather than asking every interval,
/// and keeps the trouble where the readiness route shows it.
@Suite(.closesStores) struct ChannelKeeperTests {
    @Test func aRefusedChannelManagementIsAskedLessAndLessOften() async throws {
        let store = try await StoreEngine.sqlite.open()
        let sender = RefusingChannelSender()
        let channels = FollowerChannels(store: store, now: Date.init, metrics: NOOPMetricsHandler.instance)
        channels.use(sender)
        let health = ServiceHealth()
        let interval = Duration.milliseconds(50)
        let keeper = ChannelKeeper(channels: channels, settings: FollowerSettings(keeperInterval: interval), bundleID: "app.rangers.test",
                                   policy: .standard, health: health)
        let running = Task { try await keeper.run() }
        // From the first listing on (a loaded machine may take a while to get there), 1.6 s.
        let waitingSince = ContinuousClock.now
        while sender.listings.isEmpty, ContinuousClock.now - waitingSince < .seconds(20) { try await Task.sleep(for: .milliseconds(5)) }
        let first = try #require(sender.listings.first)
        try await Task.sleep(until: first + .milliseconds(1600))
        running.cancel()
        _ = await running.result

        let asked = sender.listings.filter { $0 < first + .milliseconds(1600) }
        // Every 50 ms that would be 32 listings; doubling from 100 ms: at 0, 0.1, 0.3, 0.7 and 1.5 s.
        #expect((1...5).contains(asked.count), "\(asked.count) listings in 1.6 s")
        let gaps = zip(asked.dropFirst(), asked).map { $0 - $1 }
        for (index, gap) in gaps.enumerated() {
            #expect(gap >= interval * (1 << (index + 1)), "gap \(index): \(gap)")
        }
        let trouble = try #require(health.current["channelKeeper"])
        #expect(trouble.failures == sender.listings.count)
        #expect(trouble.reason.contains("FeatureNotEnabled"), "\(trouble.reason)")
    }
}

/// Refuses every listing of the app's channels as APNs does for an app without
/// the broadcast capability, and keeps when each came.
final class RefusingChannelSender: BroadcastChannelSender {
    private let asked = NIOLockedValueBox<[ContinuousClock.Instant]>([])

    var listings: [ContinuousClock.Instant] { asked.withLockedValue { $0 } }

    private func refused<Value>() -> APNsChannelAnswer<Value> {
        APNsChannelAnswer(outcome: .rejected(.featureNotEnabled), value: nil, response: nil, attempts: 1)
    }

    func allChannels(bundleID: String, requestID: UUID?) async throws -> APNsChannelAnswer<[BroadcastChannelID]> {
        asked.withLockedValue { $0.append(.now) }
        return refused()
    }

    func createChannel(bundleID: String, storagePolicy: MessageStoragePolicy,
                       requestID: UUID?) async throws -> APNsChannelAnswer<BroadcastChannelID> { refused() }
    func channelConfiguration(_ channel: BroadcastChannelID, bundleID: String,
                              requestID: UUID?) async throws -> APNsChannelAnswer<BroadcastChannelConfiguration> { refused() }
    func deleteChannel(_ channel: BroadcastChannelID, bundleID: String, requestID: UUID?) async throws -> APNsChannelAnswer<Void> {
        refused()
    }
    func broadcast(_ request: APNsBroadcastRequest) async throws -> APNsChannelAnswer<Void> { refused() }
}
