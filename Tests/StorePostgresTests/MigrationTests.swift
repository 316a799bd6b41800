import Foundation
import Logging
import PostgresNIO
import Store
@testable import StorePostgres
import StoreTestSupport
import Testing
import Vocabulary

@Suite(.enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.skipped)))
struct PostgresMigrationTests {
    /// A database from before v8 had a row per event; v8 carries every event
    /// over, in order and byte for byte, into a row per tick. The database is
    /// put back as v7 left it (the event table, v8 not applied), then reopened.
    @Test func v8KeepsEveryEventInOrder() async throws {
        let location = try await PostgresTestServer.shared.freshDatabase()
        let store = try await PostgresStore.open(location)
        let id = try await closing(store) {
            let id = try await Trio.make(in: store).startAdventure().id
            let logger = Logger(label: "tests.migration")
            for statement in [
                "DROP TABLE tick_events",
                "DELETE FROM schema_migration WHERE name = 'v8-tick-events'",
                """
                CREATE TABLE event (adventure TEXT NOT NULL REFERENCES adventure(id), tick INTEGER NOT NULL,
                    position INTEGER NOT NULL, event TEXT NOT NULL, PRIMARY KEY (adventure, tick, position))
                """,
            ] {
                _ = try await store.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
            // Ticks 1 and 3, inserted out of order; tick 2 had no events.
            for (tick, position, event) in [(3, 0, #"{"type":"bossEnraged"}"#), (1, 1, #"{"b":2}"#), (1, 0, #"{"a":1}"#),
                                            (1, 2, #"{"c":"x\ny"}"#)] {
                _ = try await store.query("""
                    INSERT INTO event (adventure, tick, position, event) VALUES (\(id.rawValue), \(tick), \(position), \(event))
                    """, logger: logger)
            }
            return id
        }
        let reopened = try await PostgresStore.open(location)
        try await closing(reopened) {
            let texts = try await reopened.record(of: id, includingOutbox: false).events
            #expect(texts == [LoggedEventText(tick: 1, json: #"{"a":1}"#), LoggedEventText(tick: 1, json: #"{"b":2}"#),
                              LoggedEventText(tick: 1, json: #"{"c":"x\ny"}"#),
                              LoggedEventText(tick: 3, json: #"{"type":"bossEnraged"}"#)])
            #expect(try await reopened.appliedMigrations().last == "v8-tick-events")
        }
    }
}
