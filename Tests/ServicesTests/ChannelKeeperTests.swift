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
        let clock = ManualClock()
        let sender = RefusingChannelSender(clock: clock)
        let channels = FollowerChannels(store: store, now: Date.init, metrics: NOOPMetricsHandler.instance)
        channels.use(sender)
        let health = ServiceHealth()
        let interval = Duration.milliseconds(50)
        let keeper = ChannelKeeper(channels: channels, settings: FollowerSettings(keeperInterval: interval), bundleID: "app.rangers.test",
                                   policy: .standard, clock: clock.service, health: health)
        let running = Task { try await keeper.run() }
        // 1.6 s of the keeper's time, 10 ms at a step, each once the keeper waits again.
        try await clock.step(160, by: .milliseconds(10), service: "keeper")
        running.cancel()
        _ = await running.result

        // Every 50 ms that would be 32 listings; doubling from 100 ms: at 0, 0.1, 0.3, 0.7 and 1.5 s.
        #expect(sender.listings == [0, 100, 300, 700, 1500].map { Duration.milliseconds($0) })
        let trouble = try #require(health.current["channelKeeper"])
        #expect(trouble.failures == sender.listings.count)
        #expect(trouble.reason.contains("FeatureNotEnabled"), "\(trouble.reason)")
    }
}

/// Refuses every listing of the app's channels as APNs does for an app without
/// the broadcast capability, and keeps when each came on the keeper's clock.
final class RefusingChannelSender: BroadcastChannelSender {
    private let clock: ManualClock
    private let asked = NIOLockedValueBox<[Duration]>([])

    init(clock: ManualClock) { self.clock = clock }

    var listings: [Duration] { asked.withLockedValue { $0 } }

    private func refused<Value>() -> APNsChannelAnswer<Value> {
        APNsChannelAnswer(outcome: .rejected(.featureNotEnabled), value: nil, response: nil, attempts: 1)
    }

    func allChannels(bundleID: String, requestID: UUID?) async throws -> APNsChannelAnswer<[BroadcastChannelID]> {
        asked.withLockedValue { [clock] in $0.append(clock.now.offset) }
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
