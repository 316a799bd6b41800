import Foundation
import Logging
import PostgresNIO
import Store
@testable import StorePostgres
import StoreTestSupport
import Testing
import Vocabulary

/// v18 finds an adventure's pushes through its ticks' rows of the tick log, and
/// those queued outside a tick, or before v18, through a partial index.
@Suite(.enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.skipped)))
struct PushesThroughTicksMigrationTests {
    private let logger = Logger(label: "tests.migration")

    /// Pushes queued at the start, by ticks and by none, before v18 and after it,
    /// come back as the adventure's, in order, and no other adventure's do. The
    /// database is put back as v17 left it, then reopened.
    @Test func v18FindsEveryPushOfAnAdventureOldAndNew() async throws {
        let location = try await PostgresTestServer.shared.freshDatabase()
        let store = try await PostgresStore.open(location)
        let (id, activity, other, before) = try await closing(store) {
            let trio = try await Trio.make(in: store)
            let adventure = try await trio.startAdventure(outbox: [update(ActivityID("at-the-start"), alert: true)])
            let activity = try await trio.registerActivities(for: adventure.id)[0]
            try await store.playNextTick(of: adventure.id) { _ in [update(activity, tick: 1, alert: true), update(activity, tick: 1)] }
            try await store.playNextTick(of: adventure.id)
            try await store.playNextTick(of: adventure.id) { _ in [update(activity, tick: 3, alert: true)] }
            let other = try await Trio.make(in: store).startAdventure()
            try await store.playNextTick(of: other.id) { _ in [update(ActivityID("other"), tick: 1, alert: true)] }

            let before = try await store.outbox(of: adventure.id)
            #expect(before.map(\.tick) == [0, 1, 1, 3])
            #expect(try await store.record(of: adventure.id, includingOutbox: false).outboxCount == 4)
            // Each tick's row names the pushes it queued, and none but those.
            #expect(try await pushesInTickLog(of: adventure.id, store) == [1: before[1...2].map(\.id.rawValue), 2: nil,
                                                                              3: [before[3].id.rawValue]])
            // The partial index holds the push queued at the start only.
            #expect(try await store.query("""
                SELECT id FROM outbox_message
                WHERE adventure_code = (SELECT code FROM adventure WHERE id = \(adventure.id.rawValue)) AND NOT in_tick_log
                """, logger: logger).decodeAll(Int64.self) == [before[0].id.rawValue])
            #expect(try await indexes(store).contains { $0.contains("outbox_message_by_adventure") } == false)

            // v25, which changes the columns v18 reads, undone first: it follows v18 again.
            try await store.putIdsBackAsV24Left()
            try await store.runStatements([
                "DROP INDEX outbox_message_outside_ticks",
                "CREATE INDEX outbox_message_by_adventure ON outbox_message(adventure, id)",
                "ALTER TABLE outbox_message DROP COLUMN in_tick_log",
                "ALTER TABLE tick_log DROP COLUMN pushes",
                "DELETE FROM schema_migration WHERE name = 'v18-pushes-through-ticks'",
            ])
            return (adventure.id, activity, other.id, before)
        }
        let reopened = try await PostgresStore.open(location)
        try await closing(reopened) {
            #expect(try await reopened.appliedMigrations().suffix(4) == ["v18-pushes-through-ticks", "v25-ids-as-codes-in-the-logs", "v26-outbox-holds-unfinished-pushes",
                                                                         "v27-pushes-claimed-in-commit-order"])
            #expect(try await reopened.outbox(of: id) == before)
            try await reopened.playNextTick(of: id) { _ in [update(activity, tick: 4, alert: true)] }
            let after = try await reopened.outbox(of: id)
            #expect(Array(after.prefix(4)) == before)
            #expect(after.count == 5 && after.last?.tick == 4)
            #expect(try await reopened.record(of: id, includingOutbox: false).outboxCount == 5)
            #expect(try await pushesInTickLog(of: id, reopened)[4] == [try #require(after.last).id.rawValue])
            #expect(try await reopened.outbox(of: other).map(\.message.target) == [.liveActivity(ActivityID("other"))])
        }
    }

    private func pushesInTickLog(of adventure: AdventureID, _ store: PostgresStore) async throws -> [Int: [Int64]?] {
        let rows = try await store.query("""
            SELECT tick, pushes FROM tick_log WHERE adventure_code = (SELECT code FROM adventure WHERE id = \(adventure.rawValue))
            ORDER BY tick
            """, logger: logger).decodeAll((Int, [Int64]?).self)
        return Dictionary(uniqueKeysWithValues: rows.map { ($0.0, $0.1) })
    }

    private func indexes(_ store: PostgresStore) async throws -> [String] {
        try await store.query(PostgresQuery(unsafeSQL: """
            SELECT indexname FROM pg_indexes WHERE tablename = 'outbox_message'
            """), logger: logger).decodeAll(String.self)
    }
}
