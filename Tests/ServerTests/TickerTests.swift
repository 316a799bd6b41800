import Catalog
import Foundation
import Game
import PushPolicy
import Server
import Services
import Store
import StoreTestSupport
import Testing
import Vocabulary

@Suite struct TickerTests {
    /// After a stop of twenty ticks, the missed ticks are all played, in order, at
    /// the game times they were due, not now; and two tickers racing over the same
    /// adventure (a slow one overtaken) store each tick once.
    @Test(arguments: StoreEngine.available) func missedTicksArePlayedInOrderAndOnceEvenByTwoTickers(engine: StoreEngine) async throws {
        try await DeliveryHarness.run(engine) { harness in
            let fixture = try await harness.api { try await Fixture.make($0) }
            let id = AdventureID(fixture.adventureID)
            let store = harness.store
            let before = try await store.adventure(id)
            let missed = 20
            harness.clock.advance(by: TimeInterval(missed * before.setup.tickInterval))

            let tickers = (0..<2).map { _ in
                Ticker(store: store, content: harness.resources.content, policy: harness.configuration.pushPolicy,
                       bundleID: harness.configuration.bundleID, settings: Ticker.Settings(batchSize: 1),
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

            // Every missed tick is stored, or every tick up to the end if it came sooner.
            let adventure = try Adventure(setup: before.setup, content: harness.resources.content.game)
            let endTick = adventure.playToEnd().tick
            let lastTick = min(missed, endTick)
            let after = try await store.adventure(id)
            #expect(after.lastTick == lastTick)
            #expect((after.status == .running) == (endTick > missed))
            if after.status == .running { #expect(after.nextTickAt == after.startedAt + (missed + 1) * after.setup.tickInterval) }

            // The log is the replay's, tick for tick, with nothing twice.
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
}

extension TickerTests {
    /// An adventure whose heroes have left the content can't be played; with a batch
    /// of one, it would otherwise be first in line on every pass and no other
    /// adventure would ever tick.
    @Test(arguments: StoreEngine.available) func anAdventureThatCannotBePlayedDoesNotHoldBackTheOthers(engine: StoreEngine) async throws {
        try await DeliveryHarness.run(engine) { harness in
            let fixture = try await harness.api { try await Fixture.make($0) }
            let blocked = AdventureID(fixture.adventureID)
            // A second party without Spouty, started later, so it is due after the first.
            harness.clock.advance(by: 1)
            let other = try await harness.api { api in
                let party = try await api.send(.post, "/v1/parties", key: fixture.outsider.key,
                                               body: #"{"name": "Cake squad", "hero": "cake"}"#)
                try #require(party.status == 201, "\(party)")
                let started = try await api.send(.post, "/v1/gm/adventures", key: TestServer.gameMasterKey, body: """
                    {"partyID": "\(try #require(party.json["id"].string))", "route": "whispering-woods", "tickInterval": 2}
                    """)
                try #require(started.status == 201, "\(started)")
                return AdventureID(try #require(started.json["id"].string))
            }
            harness.clock.advance(by: 10)

            let content = try contentWithout(hero: "spouty")
            let ticker = Ticker(store: harness.store, content: content, policy: harness.configuration.pushPolicy,
                                bundleID: harness.configuration.bundleID,
                                settings: Ticker.Settings(batchSize: 1, failureRetryDelay: 600), now: { harness.clock.now })
            for _ in 0..<4 { try await ticker.playDueTicks() }

            #expect(try await harness.store.adventure(other).lastTick > 0, "the playable adventure ticked")
            let stuck = try await harness.store.adventure(blocked)
            #expect(stuck.lastTick == 0)
            #expect(stuck.status == .running)
            #expect(try #require(stuck.nextTickAt) >= Int(harness.clock.now.timeIntervalSince1970) + 590,
                    "tried again only after the retry delay")
        }
    }

    /// The ticker keeps each adventure's state, activities and budgets between
    /// passes and reads only commands again, and the activities when they changed.
    /// Played that way, an adventure gets the same pushes, for the same reasons,
    /// and leaves the same budgets stored, as with a new ticker on every tick that
    /// reads everything from the store; a potion, a rotated token, a dismissed
    /// activity and one registered late on the way reach both.
    @Test(arguments: StoreEngine.available) func aTickerHoldingAdventuresDecidesAsOneReadingEverythingFromTheStore(engine: StoreEngine) async throws {
        func play(freshTickerEachTick: Bool) async throws -> (pushes: [String], ledgers: [ActivityID: BudgetLedger]) {
            return try await DeliveryHarness.run(engine) { harness in
                let fixture = try await harness.api { try await Fixture.make($0) }
                let id = AdventureID(fixture.adventureID)
                let store = harness.store
                func ticker() -> Ticker {
                    Ticker(store: store, content: harness.resources.content, policy: harness.configuration.pushPolicy,
                           bundleID: harness.configuration.bundleID, now: { harness.clock.now })
                }
                let held = ticker()
                for tick in 1...60 {
                    if tick == 10 {
                        try await store.enqueueCommand(.usePotion(player: PlayerID(fixture.bao.id), hero: "egghead"), for: id)
                    }
                    if tick == 15 {
                        try await store.rotateToken(activityID: ActivityID(fixture.chae.activityID), newToken: Tokens.make(41),
                                                    by: PlayerID(fixture.chae.id))
                    }
                    if tick == 20 {
                        try await store.markActivity(ActivityID(fixture.chae.activityID), .dismissed, by: PlayerID(fixture.chae.id))
                    }
                    if tick == 30 {
                        try await store.registerLiveActivity(activityID: "bao-second-device", player: PlayerID(fixture.bao.id),
                                                             adventure: id, hero: "egghead", token: Tokens.make(42),
                                                             frequentUpdates: false, locale: "en")
                    }
                    harness.clock.advance(by: 2)
                    let playing = freshTickerEachTick ? ticker() : held
                    while try await playing.playDueTicks() > 0 {}
                    if try await store.adventure(id).status != .running { break }
                }
                let pushes = try await store.outbox(of: id).filter { ($0.tick ?? 0) > 0 }.map { entry in
                    "\(entry.tick ?? 0) \(entry.message.target) \(entry.message.priority) \(entry.message.reason) "
                        + "alert:\(entry.message.hasAlert) end:\(entry.message.isEnd)"
                }
                return (pushes, try await store.tickInputs(of: id).ledgers)
            }
        }
        let held = try await play(freshTickerEachTick: false)
        let fresh = try await play(freshTickerEachTick: true)
        #expect(held.pushes.count > 20)
        #expect(held.pushes == fresh.pushes)
        #expect(held.ledgers == fresh.ledgers)
        #expect(held.ledgers.count == 3, "the dismissed activity is no longer a recipient, the late one is")
        #expect(held.pushes.contains { $0.contains("bao-second-device") })
    }

    /// Content/ as it is, less one hero.
    private func contentWithout(hero: String) throws -> LoadedContent {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("content-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: TestServer.contentDirectory, to: copy)
        let file = copy.appendingPathComponent("heroes.json")
        var heroes = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        heroes["heroes"] = (heroes["heroes"] as? [[String: Any]])?.filter { $0["id"] as? String != hero }
        try JSONSerialization.data(withJSONObject: heroes).write(to: file)
        return try LoadedContent.load(from: copy, requiring: PushPolicy.contentRequirements)
    }
}
