import Catalog
import Foundation
import NIOConcurrencyHelpers
import PushPolicy
import Services
import Store
import StoreTestSupport
import Testing
import Vocabulary

/// The ticker renews its leases and reads what it holds once per `leaseUpkeep`,
/// not at every pass: under load it passes some ten times a second, and each
/// renewal reads every adventure the node holds.
@Suite(.closesStores) struct TickerLeaseUpkeepTests {
    static let content = try! LoadedContent.load(from: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Content"))

    @Test func leasesAreKeptOncePerUpkeepWhateverTheNumberOfPasses() async throws {
        let clock = ManualClock()
        let store = CountingTickStore(try await StoreEngine.sqlite.open(), clock: clock)
        let ticker = Ticker(store: store, content: Self.content, policy: .standard, bundleID: "app.rangers.test",
                            settings: Ticker.Settings(longestWait: .milliseconds(100), leaseUpkeep: .seconds(1)),
                            clock: clock.service)
        let running = Task { try await ticker.run() }
        // 2.5 s of the ticker's time, 100 ms at a step, each once the ticker waits again.
        try await clock.step(25, by: .milliseconds(100), service: "ticker")
        running.cancel()
        _ = await running.result
        #expect(store.passes >= 20, "a pass every 100 ms: \(store.passes)")
        #expect(store.renewals == [0, 1000, 2000].map { Duration.milliseconds($0) })
    }
}

/// A store that counts the ticker's passes and when (on the test's clock) it
/// renewed its leases; everything else is the real store's.
final class CountingTickStore: TickStore {
    private let store: any RangersStore
    private let clock: ManualClock
    private let counts = NIOLockedValueBox((passes: 0, renewals: [Duration]()))

    init(_ store: any RangersStore, clock: ManualClock) {
        self.store = store
        self.clock = clock
    }

    var passes: Int { counts.withLockedValue { $0.passes } }
    var renewals: [Duration] { counts.withLockedValue { $0.renewals } }

    func dueAdventures(at now: Date, limit: Int, skipping: Set<AdventureID>, holding: HeldByReader) async throws -> [DueAdventure] {
        counts.withLockedValue { $0.passes += 1 }
        return try await store.dueAdventures(at: now, limit: limit, skipping: skipping, holding: holding)
    }

    func recordTicks(_ records: [TickRecord], at now: Date) async throws -> [Result<StoredTick, StoreError>] {
        try await store.recordTicks(records, at: now)
    }

    func renewLeases() async throws -> HeldAdventures {
        let at = clock.now.offset
        counts.withLockedValue { $0.renewals.append(at) }
        return try await store.renewLeases()
    }

    func releaseLeases() async throws { try await store.releaseLeases() }
    func postponeTicks(of adventure: AdventureID, until second: Int) async throws {
        try await store.postponeTicks(of: adventure, until: second)
    }
    func nextTickDue() async throws -> Date? { try await store.nextTickDue() }
    func tickInputs(of adventure: AdventureID) async throws -> TickInputs { try await store.tickInputs(of: adventure) }
}
