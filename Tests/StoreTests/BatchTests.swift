import Foundation
import Game
import PushPolicy
import Store
import StoreTestSupport
import Testing

/// The batched forms the ticker and the dispatcher use under load: one write for
/// many ticks or many answers, each still all-or-nothing on its own.
@Suite(.closesStores) struct BatchTests {
    @Test(arguments: StoreEngine.available) func aRefusedTickInABatchLeavesTheOthersStored(engine: StoreEngine) async throws {
        let store = try await engine.open()
        let first = try await Trio.make(in: store)
        let second = try await Trio.make(in: store)
        let a = try await first.startAdventure(seed: 1)
        let b = try await second.startAdventure(seed: 2)
        let activities = try await first.registerActivities(for: a.id)
        try await store.playNextTick(of: b.id)

        let stateA = try first.game(seed: 1).tick(a.state)
        let stateB = try second.game(seed: 2).tick(b.state)
        let results = try await store.recordTicks([
            TickRecord(adventure: a.id, tick: 1, state: stateA.state, events: stateA.events, appliedCommandIDs: [],
                       outbox: [update(activities[0])], ledgers: [:]),
            // b is already at tick 1.
            TickRecord(adventure: b.id, tick: 1, state: stateB.state, events: stateB.events, appliedCommandIDs: [],
                       outbox: [update(activities[1])], ledgers: [:]),
            TickRecord(adventure: "missing", tick: 1, state: stateA.state, events: [], appliedCommandIDs: [],
                       outbox: [], ledgers: [:]),
        ])
        #expect(try results[0].get().lastTick == 1)
        #expect(results[1] == .failure(.conflict("adventure \(b.id) is at tick 1; tick 1 cannot be stored after it")))
        #expect(results[2] == .failure(.notFound("adventure", id: "missing")))
        #expect(try await store.events(of: a.id).map(\.event) == stateA.events)
        #expect(try await store.events(of: b.id).map(\.event) == stateB.events)
        #expect(try await store.outbox(of: a.id).count == 1)
        #expect(try await store.outbox(of: b.id).isEmpty)
    }

    @Test(arguments: StoreEngine.available) func aBadRowInOneTickOfABatchUndoesThatTickOnly(engine: StoreEngine) async throws {
        let store = try await engine.open()
        let first = try await Trio.make(in: store)
        let second = try await Trio.make(in: store)
        let a = try await first.startAdventure(seed: 1)
        let b = try await second.startAdventure(seed: 2)
        let activitiesB = try await second.registerActivities(for: b.id)
        let tickA = try first.game(seed: 1).tick(a.state)
        let tickB = try second.game(seed: 2).tick(b.state)
        let results = try await store.recordTicks([
            TickRecord(adventure: b.id, tick: 1, state: tickB.state, events: tickB.events, appliedCommandIDs: [],
                       outbox: [update(activitiesB[0]), update(activitiesB[1], expiration: -5)], ledgers: [:]),
            TickRecord(adventure: a.id, tick: 1, state: tickA.state, events: tickA.events, appliedCommandIDs: [],
                       outbox: [], ledgers: [:]),
        ])
        guard case .failure(.invalid) = results[0] else { Issue.record("expected .invalid, got \(results[0])"); return }
        #expect(try results[1].get().lastTick == 1)
        #expect(try await store.adventure(b.id).lastTick == 0)
        #expect(try await store.events(of: b.id).isEmpty)
        #expect(try await store.outbox(of: b.id).isEmpty)
    }

    /// A tick that spends the budget of another adventure's activity is refused,
    /// even where that adventure's own tick in the batch spends the same budget:
    /// that tick is stored, with its budget.
    @Test(arguments: StoreEngine.available) func aBudgetOfAnotherAdventureRefusesItsTickOnly(engine: StoreEngine) async throws {
        let store = try await engine.open()
        let first = try await Trio.make(in: store)
        let second = try await Trio.make(in: store)
        let a = try await first.startAdventure(seed: 1)
        let b = try await second.startAdventure(seed: 2)
        let activitiesA = try await first.registerActivities(for: a.id)
        let activitiesB = try await second.registerActivities(for: b.id)
        let tickA = try first.game(seed: 1).tick(a.state)
        let tickB = try second.game(seed: 2).tick(b.state)
        var spentByA = BudgetLedger()
        spentByA.lastPushAt = 7
        var spentByB = BudgetLedger()
        spentByB.lastPushAt = 9
        let results = try await store.recordTicks([
            TickRecord(adventure: a.id, tick: 1, state: tickA.state, events: tickA.events, appliedCommandIDs: [],
                       outbox: [update(activitiesA[0])], ledgers: [activitiesA[0]: spentByA, activitiesB[0]: spentByA]),
            TickRecord(adventure: b.id, tick: 1, state: tickB.state, events: tickB.events, appliedCommandIDs: [],
                       outbox: [update(activitiesB[0])], ledgers: [activitiesB[0]: spentByB]),
        ])
        #expect(results[0] == .failure(TickRules.strangerActivity(activitiesB[0].rawValue, of: a.id)))
        #expect(try results[1].get().lastTick == 1)
        #expect(try await store.adventure(a.id).lastTick == 0)
        #expect(try await store.outbox(of: a.id).isEmpty)
        #expect(try await store.liveActivity(activitiesA[0]).ledger == BudgetLedger())
        #expect(try await store.liveActivity(activitiesB[0]).ledger == spentByB)
        #expect(try await store.outbox(of: b.id).count == 1)
    }

    @Test(arguments: StoreEngine.available) func answersRecordedTogetherAreEachRecordedOnce(engine: StoreEngine) async throws {
        let store = try await engine.open()
        let trio = try await Trio.make(in: store)
        let adventure = try await trio.startAdventure()
        let activities = try await trio.registerActivities(for: adventure.id)
        try await store.playNextTick(of: adventure.id) { _ in activities.map { update($0, tick: 1, alert: true) } }
        let claimed = try await store.claimOutbox(limit: 10)
        try #require(claimed.count == 3)
        let refusals = try await store.record([
            PushResult(claimed[0], .delivered(apnsID: "one")),
            PushResult(claimed[0], .delivered(apnsID: "twice")),
            PushResult(claimed[1], .tokenInvalid(status: 410, reason: "Unregistered", since: nil)),
            PushResult(claimed[2], .retryLater(at: Date().addingTimeInterval(-1), reason: "503")),
        ])
        #expect(refusals.map { $0 == nil } == [true, false, true, true])
        #expect(try await store.pushLog(of: adventure.id).map(\.apnsID) == ["one", nil])
        #expect(try await store.liveActivity(activities[1]).token == nil)
        #expect(try await store.claimOutbox(limit: 10).map(\.id) == [claimed[2].id])
    }
}
