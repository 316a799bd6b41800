import Foundation
import Game
import Server
import Store
import Testing

@Suite struct TickerTests {
    /// After a stop of twenty ticks, the missed ticks are all played, in order, at
    /// the game times they were due, not now; and two tickers racing over the same
    /// adventure (a slow one overtaken) store each tick once.
    @Test func missedTicksArePlayedInOrderAndOnceEvenByTwoTickers() async throws {
        let harness = try await DeliveryHarness.start()
        defer { Task { await harness.shutdown() } }
        let fixture = try await harness.api { try await Fixture.make($0) }
        let id = AdventureID(fixture.adventureID)
        let store = harness.store
        let before = try await store.adventure(id)
        let missed = 20
        harness.clock.advance(by: TimeInterval(missed * before.setup.tickInterval))

        let tickers = (0..<2).map { _ in
            Ticker(store: store, content: harness.resources.content, policy: harness.configuration.pushPolicy,
                   topic: harness.configuration.liveActivityTopic, settings: Ticker.Settings(batchSize: 1),
                   now: { harness.clock.now })
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for ticker in tickers {
                group.addTask {
                    var passes = 0
                    while try await ticker.playDueTicks() > 0 || passes < 3 { passes += 1 }
                }
            }
            try await group.waitForAll()
        }

        let after = try await store.adventure(id)
        let lastTick = after.status == .running ? missed : after.lastTick
        #expect(after.lastTick == lastTick)
        if after.status == .running { #expect(after.nextTickAt == after.startedAt + (missed + 1) * after.setup.tickInterval) }

        // The log is the replay's, tick for tick, with nothing twice.
        let adventure = try Adventure(setup: after.setup, content: harness.resources.content.game)
        var replayed: [String] = []
        adventure.playToEnd { state, events in
            if state.tick <= lastTick { replayed += events.enumerated().map { "\(state.tick).\($0.offset) \($0.element)" } }
        }
        let logged = try await store.events(of: id).map { "\($0.tick).\($0.position) \($0.event)" }
        #expect(logged == replayed)
        #expect(!logged.isEmpty)

        // At most one push per activity and tick, stamped with the tick's game time.
        let pushes = try await store.outbox(of: id).filter { ($0.tick ?? 0) > 0 }
        #expect(!pushes.isEmpty)
        var seen: Set<String> = []
        for push in pushes {
            let tick = try #require(push.tick)
            #expect(seen.insert("\(push.message.target) \(tick)").inserted, "two pushes for \(push.message.target) at tick \(tick)")
            let body = try JSONSerialization.jsonObject(with: push.message.payload) as? [String: Any]
            let aps = try #require(body?["aps"] as? [String: Any])
            #expect(aps["timestamp"] as? Int == after.startedAt + tick * after.setup.tickInterval)
        }
    }
}
