import Foundation
import Logging
import PostgresNIO
import Store
@testable import StorePostgres
import StoreTestSupport
import Testing
import Vocabulary

/// v25: the tick log, the messages and the push log name their adventure by its
/// code, and the tick log its node. A database from before reads as it did, a
/// log naming an adventure that is not stored stops the migration, and a
/// heartbeat draws no code.
@Suite(.enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.skipped)))
struct IdsAsCodesInTheLogsTests {
    private let logger = Logger(label: "tests.migration")

    @Test func v25KeepsEveryTickPushAndAnswerAsTheyRead() async throws {
        let location = try await PostgresTestServer.shared.freshDatabase()
        let store = try await PostgresStore.open(location)
        let (ids, before, ticks) = try await closing(store) {
            let first = try await Trio.make(in: store)
            let adventure = try await first.startAdventure()
            let activities = try await first.registerActivities(for: adventure.id)
            for tick in 1...2 {
                try await store.playNextTick(of: adventure.id) { _ in activities.map { update($0, tick: tick, alert: tick == 2) } }
            }
            for push in try await store.claimOutbox(limit: 10) { try await store.recordDelivered(push, apnsID: "a-\(push.id)") }
            let second = try await Trio.make(in: store)
            let other = try await second.startAdventure()
            try await store.playNextTick(of: other.id)
            let ids = [adventure.id, other.id]
            var before: [AdventureID: AdventureRecordParts] = [:]
            for id in ids { before[id] = try await AdventureRecordParts(id, in: store) }
            try await store.putIdsBackAsV24Left()
            // A tick stored by a node that has no row of its own.
            _ = try await store.query("UPDATE tick_log SET node = 'a-node-gone' WHERE tick = 1 AND adventure = \(other.id.rawValue)",
                                      logger: logger)
            return (ids, before, try await store.query("SELECT adventure, tick, node FROM tick_log ORDER BY adventure, tick",
                                                       logger: logger).decodeAll((String, Int, String?).self))
        }
        #expect(ticks.count == 3 && ticks.contains { $0.2 == "a-node-gone" })
        let reopened = try await PostgresStore.open(location)
        try await closing(reopened) {
            #expect(try await reopened.appliedMigrations().suffix(3) == ["v25-ids-as-codes-in-the-logs", "v26-outbox-holds-unfinished-pushes",
                                                                         "v27-pushes-claimed-in-commit-order"])
            for id in ids { #expect(try await AdventureRecordParts(id, in: reopened) == before[id]) }
            let after = try await reopened.query("SELECT adventure, tick, node FROM tick_log_with_ids ORDER BY adventure, tick",
                                                 logger: logger).decodeAll((String, Int, String?).self)
            #expect(after.map { [$0.0, "\($0.1)", $0.2] } == ticks.map { [$0.0, "\($0.1)", $0.2] })
            let gone = try await reopened.query("""
                SELECT stopped_at IS NOT NULL AND alive_until <= now() FROM node WHERE id = 'a-node-gone'
                """, logger: logger).decodeAll(Bool.self)
            #expect(gone == [true], "the node that stored a tick is there, stopped")
            let types = try await reopened.query("""
                SELECT table_name || '.' || column_name || ' ' || udt_name FROM information_schema.columns
                WHERE table_name IN ('tick_log', 'outbox_message', 'push_log') AND column_name LIKE '%code' ORDER BY 1
                """, logger: logger).decodeAll(String.self)
            #expect(types == ["outbox_message.adventure_code int8", "outbox_message.topic_code int4", "push_log.adventure_code int8",
                              "tick_log.adventure_code int8", "tick_log.node_code int4"])
            // What is stored after the migration reads as before.
            try await reopened.playNextTick(of: ids[1])
            #expect(try await reopened.record(of: ids[1], includingOutbox: true).events.count
                    > before[ids[1]]!.events.count)
        }
    }

    /// A log that names an adventure that is not stored stops the migration, and
    /// nothing is changed: its pushes would otherwise belong to no adventure.
    @Test func v25RefusesALogNamingAnAdventureThatIsNotStored() async throws {
        let location = try await PostgresTestServer.shared.freshDatabase()
        let store = try await PostgresStore.open(location)
        try await closing(store) {
            let trio = try await Trio.make(in: store)
            let adventure = try await trio.startAdventure()
            let activity = try await trio.registerActivities(for: adventure.id)[0]
            try await store.playNextTick(of: adventure.id) { _ in [update(activity, tick: 1, alert: true)] }
            try await store.putIdsBackAsV24Left()
            _ = try await store.query("UPDATE outbox_message SET adventure = 'no-such-adventure'", logger: logger)
        }
        await #expect { try await PostgresStore.open(location) } throws: { error in
            "\(error)".contains("the logs name adventure no-such-adventure that is not stored")
        }
        #expect(try await rawRows(in: location, "SELECT DISTINCT adventure FROM outbox_message") == [["no-such-adventure"]])
    }

    /// A heartbeat renews the node's row without drawing a number for its code:
    /// an insert that met the row would draw one each beat, and a code is 4 bytes.
    @Test func aHeartbeatDrawsNoCode() async throws {
        let store = try await PostgresStore.open(try await PostgresTestServer.shared.freshDatabase())
        try await closing(store) {
            for _ in 1...5 { try await store.beat() }
            let drawn = try await store.query("""
                SELECT n.code::int8 = s.last_value FROM node n, node_code_seq s WHERE n.id = \(store.node)
                """, logger: logger).decodeAll(Bool.self)
            #expect(drawn == [true])
        }
    }
}

/// What an adventure reads as, through every reader that goes by its code.
private struct AdventureRecordParts: Equatable {
    var events: [LoggedEventText]
    var outbox: [OutboxEntry]?
    var outboxCount: Int
    var pushLog: [PushLogEntry]
    var page: [PushLogEntry]

    init(_ id: AdventureID, in store: PostgresStore) async throws {
        let record = try await store.record(of: id, includingOutbox: true)
        (events, outbox, outboxCount) = (record.events, record.outbox, record.outboxCount)
        pushLog = try await store.pushLog(of: id)
        page = try await store.pushLog(of: id, after: PushLogCursor(batch: 0, entry: 0), limit: 100).entries.map(\.entry)
    }
}

extension PostgresStore {
    /// Runs each statement in turn, as written: how the migration tests put a
    /// database back as an earlier version left it.
    func runStatements(_ statements: [String]) async throws {
        let logger = Logger(label: "tests.migration")
        for statement in statements { _ = try await query(PostgresQuery(unsafeSQL: statement), logger: logger) }
    }

    /// Puts the logs' adventures and nodes back as v24 left them (their ids, as
    /// text compared as bytes), and v25 and v26 as not applied: what the migration
    /// tests of the migrations before it start from.
    func putIdsBackAsV24Left() async throws {
        try await putOutboxBackAsV25Left()
        try await runStatements([
            "DROP VIEW tick_log_with_ids",
            "CREATE FUNCTION test_adventure_id(code BIGINT) RETURNS TEXT LANGUAGE sql STABLE AS $$ SELECT id FROM adventure a WHERE a.code = $1 $$",
            "CREATE FUNCTION test_node_id(code INTEGER) RETURNS TEXT LANGUAGE sql STABLE AS $$ SELECT id FROM node n WHERE n.code = $1 $$",
            "ALTER TABLE tick_log RENAME COLUMN adventure_code TO adventure",
            "ALTER TABLE tick_log RENAME COLUMN node_code TO node",
            """
            ALTER TABLE tick_log ALTER COLUMN adventure TYPE TEXT COLLATE "C" USING test_adventure_id(adventure),
                ALTER COLUMN node TYPE TEXT COLLATE "C" USING test_node_id(node)
            """,
            "ALTER TABLE outbox_message RENAME COLUMN adventure_code TO adventure",
            #"ALTER TABLE outbox_message ALTER COLUMN adventure TYPE TEXT COLLATE "C" USING test_adventure_id(adventure)"#,
            "ALTER TABLE push_log RENAME COLUMN adventure_code TO adventure",
            #"ALTER TABLE push_log ALTER COLUMN adventure TYPE TEXT COLLATE "C" USING test_adventure_id(adventure)"#,
            "DROP FUNCTION test_adventure_id(BIGINT)",
            "DROP FUNCTION test_node_id(INTEGER)",
            "ALTER TABLE adventure DROP COLUMN code",
            "ALTER TABLE node DROP COLUMN code",
            "DELETE FROM schema_migration WHERE name = 'v25-ids-as-codes-in-the-logs'",
        ])
    }
}
