import Foundation
import Game
import PushPolicy
import Store
import StorePostgres
import StoreTestSupport
import Testing
import Vocabulary

/// A batch of ticks costs a fixed number of statements, whatever it holds:
/// counted by the server itself (`pg_stat_statements`). One test at a time: a
/// reset of the counts is the server's, not a database's.
@Suite(.enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.skipped)), .closesStores, .serialized)
struct PostgresRoundTripTests {
    /// Statements this database ran since the last reset, the heartbeat's left out.
    func statements(_ database: TestDatabase) async throws -> Int {
        let rows = try await database.rows(sqlite: "", postgres: """
            SELECT COALESCE(SUM(calls), 0)::text FROM pg_stat_statements
            WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
              AND query NOT LIKE '%pg_stat_statements%' AND query NOT LIKE '%INTO node%'
            """)
        return Int(rows.first?.first.flatMap { $0 } ?? "") ?? -1
    }

    func reset(_ database: TestDatabase) async throws {
        _ = try await database.rows(sqlite: "", postgres: "SELECT pg_stat_statements_reset()::text")
    }

    /// `count` adventures at tick 0, each with three activities, a potion queued,
    /// and its tick 1 computed: events, the potion, a push and a budget per activity.
    func ticks(_ count: Int, in store: any RangersStore) async throws -> [TickRecord] {
        var records: [TickRecord] = []
        for seed in 0..<count {
            let trio = try await Trio.make(in: store)
            let adventure = try await trio.startAdventure(seed: UInt64(seed))
            let activities = try await trio.registerActivities(for: adventure.id)
            let potion = try await store.enqueueCommand(.usePotion(player: trio.players[1].id, hero: trio.heroes[1]),
                                                        for: adventure.id)
            let (state, events) = try trio.game(seed: UInt64(seed)).tick(adventure.state, commands: [potion.command])
            var ledger = BudgetLedger()
            ledger.lastPushAt = 1_002
            records.append(TickRecord(adventure: adventure.id, tick: 1, state: state, events: events,
                                      appliedCommandIDs: [potion.id], outbox: activities.map { update($0, tick: 1) },
                                      ledgers: Dictionary(uniqueKeysWithValues: activities.map { ($0, ledger) })))
        }
        return records
    }

    @Test func aBatchOfTicksCostsTheSameStatementsWhateverItHolds() async throws {
        let database = try await StoreEngine.postgres.database()
        _ = try await database.rows(sqlite: "", postgres: "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        let store = try await database.open()
        let one = try await ticks(1, in: store)
        let many = try await ticks(25, in: store)
        #expect(many.map(\.events.count).reduce(0, +) > 25 && many.map(\.outbox.count).reduce(0, +) == 75)

        try await reset(database)
        #expect(try await store.recordTicks(one).allSatisfy { (try? $0.get()) != nil })
        let forOne = try await statements(database)
        try await reset(database)
        #expect(try await store.recordTicks(many).allSatisfy { (try? $0.get()) != nil })
        let forMany = try await statements(database)
        // BEGIN, the commands' and budgets' checks, the fenced update, the tick log, events,
        // commands, superseding, pushes, budgets, COMMIT.
        #expect(forOne == forMany)
        #expect(forMany <= 12, "\(forMany) statements for a batch of 25 ticks")
    }

    /// Answers are settled as they are, in one statement, with no read of their
    /// rows first: a batch of 77 costs what a batch of one does.
    @Test func aBatchOfAnswersCostsTheSameStatementsWhateverItHolds() async throws {
        let database = try await StoreEngine.postgres.database()
        _ = try await database.rows(sqlite: "", postgres: "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        let store = try await database.open()
        #expect(try await store.recordTicks(try await ticks(26, in: store)).allSatisfy { (try? $0.get()) != nil })
        let claimed = try await store.claimOutbox(limit: 100)
        try #require(claimed.count == 78)

        try await reset(database)
        #expect(try await store.record([PushResult(claimed[0], .delivered(apnsID: "one"))]) == [nil])
        let forOne = try await statements(database)
        try await reset(database)
        let refusals = try await store.record(claimed.dropFirst().map { PushResult($0, .delivered(apnsID: "many")) })
        #expect(refusals.count == 77 && refusals.allSatisfy { $0 == nil })
        let forMany = try await statements(database)
        // BEGIN, the settling update, the push log, COMMIT.
        #expect(forOne == forMany)
        #expect(forMany <= 4, "\(forMany) statements for a batch of 77 answers")
        #expect(try await store.pendingOutboxCount() == 0)
    }

    /// A due read counts the running adventures for the fair share only when a
    /// due adventure has no holder, or a tenth of a lease after it last did (for
    /// leases that ran out): not for every batch.
    @Test func theFairShareIsCountedWhenThereIsSomethingToTake() async throws {
        let database = try await StoreEngine.postgres.database()
        _ = try await database.rows(sqlite: "", postgres: "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        // A 20 s lease: the count is due again 2 s after the last, time enough for
        // the reads between.
        let store = try await database.open(lease: .seconds(20)) as! PostgresStore
        func counts() async throws -> Int {
            let rows = try await database.rows(sqlite: "", postgres: """
                SELECT COALESCE(SUM(calls), 0)::text FROM pg_stat_statements
                WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
                  AND query LIKE '%COUNT(*) FILTER (WHERE lease_holder%'
                """)
            return Int(rows.first?.first.flatMap { $0 } ?? "") ?? -1
        }
        var started: [AdventureID] = []
        for seed in 0..<3 { started.append(try await Trio.make(in: store).startAdventure(seed: UInt64(seed)).id) }
        #expect(Set(try await store.dueAdventures(by: 1_002).map(\.id)) == Set(started))

        try await reset(database)
        for _ in 0..<5 { #expect(try await store.dueAdventures(by: 1_002).count == 3) }
        #expect(try await counts() == 0, "all due adventures held: nothing to count")
        started.append(try await Trio.make(in: store).startAdventure(seed: 3).id)
        #expect(Set(try await store.dueAdventures(by: 1_002).map(\.id)) == Set(started), "a new adventure is taken at once")
        #expect(try await counts() == 1)
        try await Task.sleep(for: .milliseconds(2_100))
        _ = try await store.dueAdventures(by: 1_002)
        #expect(try await counts() == 2, "a tenth of a lease later")
    }
}
