import Foundation
import Game
import PushPolicy
import Store
@testable import StorePostgres
import StoreTestSupport
import Testing
import Vocabulary

/// The invariants SQLite's one writer kept for free, held under PostgreSQL's
/// READ COMMITTED by many callers at once, each through two stores (two nodes).
@Suite(.enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.skipped)), .closesStores)
struct PostgresConcurrencyTests {
    /// Two nodes on one fresh database.
    func twoNodes(lease: Duration = .seconds(10)) async throws -> (TestDatabase, PostgresStore, PostgresStore) {
        let database = try await StoreEngine.postgres.database()
        let first = try await database.open(lease: lease) as! PostgresStore
        let second = try await database.open(lease: lease) as! PostgresStore
        return (database, first, second)
    }

    @Test func anActivityHasOneValidTokenWhateverRotatesAtOnce() async throws {
        let (database, a, b) = try await twoNodes()
        let trio = try await Trio.make(in: a)
        let adventure = try await trio.startAdventure()
        let activity = try #require(try await trio.registerActivities(for: adventure.id).first)
        let owner = trio.players[0].id
        // Twenty rotations at once, half through each node: each takes the activity's
        // row lock in turn, so every one succeeds and the last one's token is the valid one.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                let store = index.isMultiple(of: 2) ? a : b
                group.addTask { try await store.rotateToken(activityID: activity, newToken: Tokens.make(100 + index), by: owner) }
            }
            try await group.waitForAll()
        }
        let tokens = try await database.rows(
            sqlite: "", postgres: "SELECT token, (invalidated_at IS NULL)::text FROM activity_token WHERE activity = $1 ORDER BY id",
            [activity.rawValue])
        #expect(tokens.count == 21)
        let valid = tokens.filter { $0[1] == "true" }
        #expect(valid.count == 1)
        #expect(valid.first?[0] == tokens.last?[0])
        #expect(try await a.liveActivity(activity).token?.hex == tokens.last?[0])
    }

    @Test func theSchemaRefusesASecondValidTokenForAnActivity() async throws {
        let (database, a, _) = try await twoNodes()
        let trio = try await Trio.make(in: a)
        let adventure = try await trio.startAdventure()
        let activity = try #require(try await trio.registerActivities(for: adventure.id).first)
        await #expect(throws: (any Error).self) {
            _ = try await database.rows(sqlite: "", postgres: """
                INSERT INTO activity_token (activity, token, registered_at) VALUES ($1, 'ab', now()) RETURNING id::text
                """, [activity.rawValue])
        }
    }

    /// Both nodes store tick 1 of the same ten adventures at once: each tick is
    /// stored once. The records carry no events, so no event key can refuse the
    /// second: the fenced update alone does.
    @Test func aTickIsStoredOnceWhoeverStoresItAtOnce() async throws {
        let (_, a, b) = try await twoNodes()
        var records: [TickRecord] = []
        for seed in 0..<10 {
            let trio = try await Trio.make(in: a)
            let adventure = try await trio.startAdventure(seed: UInt64(seed))
            let state = try trio.game(seed: UInt64(seed)).tick(adventure.state).state
            records.append(TickRecord(adventure: adventure.id, tick: 1, state: state, events: [], appliedCommandIDs: [],
                                      outbox: [], ledgers: [:]))
        }
        async let first = a.recordTicks(records, at: Date())
        async let second = b.recordTicks(records.reversed(), at: Date())
        let (one, other) = try await (first, Array(second.reversed()))
        for (index, pair) in zip(one, other).enumerated() {
            let stored = [pair.0, pair.1].filter { if case .success = $0 { true } else { false } }
            #expect(stored.count == 1, "adventure \(index) stored \(stored.count) times")
        }
        for record in records { #expect(try await a.adventure(record.adventure).lastTick == 1) }
    }

    /// Consecutive ticks of the same adventures stored at once, in two
    /// transactions (tick t and t + 1, each made beforehand; one node, so that
    /// its lease lets both through): the later tick's fenced update waits for the
    /// earlier's transaction, so its queuing sees the earlier's routine updates
    /// and supersedes them, and no two wait side by side for one activity. That is
    /// what lets a claim look for a newer push only behind the pushes that have
    /// been out (`QueuedPushRules.mayHaveNewerPush`).
    @Test func aTicksRoutineUpdatesSupersedeThoseOfTheTickStoredAtTheSameMoment() async throws {
        let (_, a, _) = try await twoNodes()
        var adventures: [(id: AdventureID, activities: [ActivityID], game: Adventure, state: AdventureState)] = []
        for seed in 0..<6 {
            let trio = try await Trio.make(in: a)
            let adventure = try await trio.startAdventure(seed: UInt64(seed))
            adventures.append((adventure.id, try await trio.registerActivities(for: adventure.id),
                               try trio.game(seed: UInt64(seed)), adventure.state))
        }
        func records(_ tick: Int, _ states: [AdventureState]) -> [TickRecord] {
            zip(adventures, states).map { adventure, state in
                TickRecord(adventure: adventure.id, tick: tick, state: state, events: [], appliedCommandIDs: [],
                           outbox: adventure.activities.map { update($0, tick: tick) }, ledgers: [:])
            }
        }
        for tick in stride(from: 1, to: 9, by: 2) {
            let earlier = adventures.map { $0.game.tick($0.state).state }
            let later = zip(adventures, earlier).map { $0.game.tick($1).state }
            let (earlierTicks, laterTicks) = (records(tick, earlier), records(tick + 1, later))
            async let first = a.recordTicks(earlierTicks, at: Date())
            async let second = a.recordTicks(laterTicks, at: Date())
            let (one, other) = try await (first, second)
            #expect(one.allSatisfy { if case .success = $0 { true } else { false } }, "tick \(tick): \(one)")
            // A later tick that came first was refused by the fence: stored now, after.
            let refused = laterTicks.enumerated().filter { if case .failure = other[$0.offset] { true } else { false } }
            if !refused.isEmpty { _ = try await a.recordTicks(refused.map(\.element), at: Date()) }
            for (index, adventure) in adventures.enumerated() {
                adventures[index].state = later[index]
                let waiting = try await a.outbox(of: adventure.id).filter { $0.state == .pending }
                #expect(waiting.map(\.message.payload) == adventure.activities.map { update($0, tick: tick + 1).payload },
                        "tick \(tick + 1): \(waiting.map(\.id))")
            }
        }
    }

    /// And only a tick queues a push a newer one may supersede: anything else
    /// that tried would be refused, not raced.
    @Test func aPushANewerOneMaySupersedeIsQueuedOnlyByATick() async throws {
        let (_, a, _) = try await twoNodes()
        let trio = try await Trio.make(in: a)
        let adventure = try await trio.startAdventure()
        let activity = try #require(try await trio.registerActivities(for: adventure.id).first)
        await #expect {
            try await a.transaction { try await a.enqueue([QueuedMessage(message: update(activity))], at: Date(), $0) }
        } throws: { error in
            if case .invalid(let reason) = error as? StoreError { reason.contains("only by its adventure's tick") } else { false }
        }
        #expect(try await a.outbox(of: adventure.id).isEmpty)
        let alert = try await a.transaction { try await a.enqueue([QueuedMessage(message: update(activity, alert: true))], at: Date(), $0) }
        #expect(alert.count == 1)
    }

    /// 120 pushes, two dispatchers claiming at once in small batches: each push is
    /// claimed by exactly one of them.
    @Test func eachPushIsClaimedByOneDispatcher() async throws {
        let (_, a, b) = try await twoNodes()
        let trio = try await Trio.make(in: a)
        let adventure = try await trio.startAdventure()
        let activities = try await trio.registerActivities(for: adventure.id)
        for tick in 1...40 {
            try await a.playNextTick(of: adventure.id) { _ in activities.map { update($0, tick: tick, alert: true) } }
        }
        func drain(_ store: PostgresStore) async throws -> [OutboxID] {
            var claimed: [OutboxID] = []
            while true {
                let batch = try await store.claimOutbox(limit: 7)
                if batch.isEmpty { return claimed }
                claimed += batch.map(\.id)
            }
        }
        async let byA = drain(a)
        async let byB = drain(b)
        let (first, second) = try await (byA, byB)
        #expect(first.count + second.count == 120)
        #expect(Set(first).isDisjoint(with: second))
        #expect(Set(first + second).count == 120)
    }

    /// A node's claims stay its own while its heartbeat lasts, however long it
    /// takes; once it stops beating (killed, hung), another node sends them again,
    /// and the first node's late answer is refused.
    @Test func claimsOfALiveNodeAreNeverTakenButADeadNodesAre() async throws {
        let (_, a, b) = try await twoNodes(lease: .seconds(1))
        let trio = try await Trio.make(in: a)
        let adventure = try await trio.startAdventure()
        let activities = try await trio.registerActivities(for: adventure.id)
        try await a.playNextTick(of: adventure.id) { _ in activities.map { update($0, tick: 1, alert: true) } }
        let claimed = try await a.claimOutbox(limit: 10)
        #expect(claimed.count == 3)
        try await Task.sleep(for: .milliseconds(1_500))
        #expect(try await b.recoverInterruptedSends() == 0, "a live node's claims are taken")
        try await a.recordDelivered(claimed[0], apnsID: "one")

        await a.stopBeating()
        try await Task.sleep(for: .milliseconds(1_500))
        #expect(try await b.recoverInterruptedSends() == 2)
        let again = try await b.claimOutbox(limit: 10)
        #expect(Set(again.map(\.id)) == Set(claimed.dropFirst().map(\.id)))
        await #expect(throws: StoreError.self) { try await a.recordDelivered(claimed[1], apnsID: "late") }
        for push in again { try await b.recordDelivered(push, apnsID: "again") }
        #expect(try await b.pendingOutboxCount() == 0)
    }
}
