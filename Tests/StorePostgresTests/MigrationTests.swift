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
    /// over, in order and byte for byte, into a row per tick (since v12, the
    /// tick's row of the tick log). The database is put back as v7 left it (the
    /// event table, v8, v12, v21 and v25 not applied), then reopened.
    @Test func v8KeepsEveryEventInOrder() async throws {
        let location = try await PostgresTestServer.shared.freshDatabase()
        let store = try await PostgresStore.open(location)
        let id = try await closing(store) {
            let id = try await Trio.make(in: store).startAdventure().id
            try await store.putGameTextBackAsV20Left()
            try await store.putIdsBackAsV24Left()
            let logger = Logger(label: "tests.migration")
            try await store.runStatements([
                // v12 undone: the tick log without events.
                "ALTER TABLE tick_log DROP COLUMN events",
                "ALTER TABLE tick_log ALTER COLUMN node SET NOT NULL",
                "ALTER TABLE tick_log ALTER COLUMN stored_at SET NOT NULL",
                "DELETE FROM schema_migration WHERE name IN ('v8-tick-events', 'v12-tick-log-events')",
                """
                CREATE TABLE event (adventure TEXT NOT NULL REFERENCES adventure(id), tick INTEGER NOT NULL,
                    position INTEGER NOT NULL, event TEXT NOT NULL, PRIMARY KEY (adventure, tick, position))
                """,
            ])
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
            #expect(try await reopened.appliedMigrations().suffix(6) == ["v8-tick-events", "v12-tick-log-events",
                                                                         "v21-deflated-game-text", "v25-ids-as-codes-in-the-logs", "v26-outbox-holds-unfinished-pushes",
                                                                         "v27-pushes-claimed-in-commit-order"])
        }
    }

    /// A database from before v11 kept each push in one row of the outbox; v11
    /// splits it into its message and its progress. Pushes waiting, claimed and
    /// answered come back as they were, and the next push queued after the
    /// migration follows them. The database is put back as v10 left it, then reopened.
    @Test func v11KeepsEveryPushWhole() async throws {
        let location = try await PostgresTestServer.shared.freshDatabase()
        let store = try await PostgresStore.open(location)
        let (id, activity, before) = try await closing(store) {
            let trio = try await Trio.make(in: store)
            let adventure = try await trio.startAdventure()
            let activity = try await trio.registerActivities(for: adventure.id)[0]
            try await store.playNextTick(of: adventure.id) { _ in [update(activity, tick: 1), update(activity, tick: 1, alert: true)] }
            let claimed = try await store.claimOutbox(limit: 1)
            _ = try await store.recordAndClaim([PushResult(try #require(claimed.first), .delivered(apnsID: "a-1"))], limit: 0)
            try await store.playNextTick(of: adventure.id) { _ in [update(activity, tick: 2)] }
            let before = try await store.outbox(of: adventure.id)
            #expect(Set(before.map(\.state)).isSuperset(of: [.sent, .pending]), "\(before.map(\.state))")
            // v23 and v22, which change the messages' columns and the progress rows, undone
            // first: they follow v11 again.
            try await store.putPushColumnsBackAsV22Left()
            try await store.putOutboxBackAsV21Left()
            try await store.runStatements([
                """
                ALTER TABLE outbox ADD COLUMN adventure TEXT REFERENCES adventure(id), ADD COLUMN push_type TEXT,
                    ADD COLUMN topic TEXT, ADD COLUMN priority INTEGER, ADD COLUMN expiration BIGINT, ADD COLUMN payload BYTEA,
                    ADD COLUMN reason TEXT, ADD COLUMN has_alert BOOLEAN, ADD COLUMN is_end BOOLEAN, ADD COLUMN tick INTEGER,
                    ADD COLUMN created_at TIMESTAMPTZ
                """,
                """
                UPDATE outbox SET adventure = m.adventure, push_type = m.push_type, topic = m.topic, priority = m.priority,
                    expiration = m.expiration, payload = m.payload, reason = m.reason, has_alert = m.has_alert,
                    is_end = m.is_end, tick = m.tick, created_at = m.created_at
                FROM outbox_message m WHERE m.id = outbox.id
                """,
                "DROP TABLE outbox_message",
                "DROP INDEX outbox_pending_by_target",
                "CREATE INDEX outbox_pending_supersedable ON outbox(target_kind, target_id) WHERE state = 'pending' AND supersedable",
                "CREATE INDEX outbox_by_target ON outbox(target_kind, target_id, id)",
                "CREATE INDEX outbox_by_adventure ON outbox(adventure, id)",
                // v18, which changes the messages' table, undone too: it follows v11 again.
                "ALTER TABLE tick_log DROP COLUMN pushes",
                "DELETE FROM schema_migration WHERE name IN ('v11-outbox-message', 'v18-pushes-through-ticks')",
            ])
            return (adventure.id, activity, before)
        }
        let reopened = try await PostgresStore.open(location)
        try await closing(reopened) {
            #expect(try await reopened.appliedMigrations().suffix(8) == ["v11-outbox-message", "v18-pushes-through-ticks",
                                                                         "v22-outbox-claimed-in-place", "v23-push-columns-as-codes",
                                                                         "v24-ids-compared-as-bytes", "v25-ids-as-codes-in-the-logs", "v26-outbox-holds-unfinished-pushes",
                                                                         "v27-pushes-claimed-in-commit-order"])
            #expect(try await reopened.outbox(of: id) == before)
            #expect(try await reopened.pushLog(of: id).map(\.payload) == before.filter { $0.state == .sent }.map(\.message.payload))
            try await reopened.playNextTick(of: id) { _ in [update(activity, tick: 3)] }
            let after = try await reopened.outbox(of: id)
            #expect(after.count == before.count + 1)
            // Tick 1's routine push was superseded at once by its alert: its outcome is the one to expect.
            let supersededOutcome = try #require(before.first { $0.state == .superseded }?.outcome)
            for (old, new) in zip(before, after) {
                // The new push to the same activity supersedes the routine one still waiting.
                var expected = old
                if old.state == .pending, old.message.target == .liveActivity(activity) {
                    (expected.state, expected.outcome) = (.superseded, supersededOutcome)
                }
                #expect(new == expected)
            }
            #expect(after.last?.tick == 3 && after.last?.state == .pending)
            #expect(try #require(after.last).id.rawValue > before.map(\.id.rawValue).max()!)
        }
    }

    /// A database from before v12 kept a tick's events in `tick_events`, beside
    /// its row of the tick log; v12 moves them into that row. Events come back in
    /// order, byte for byte; a tick stored before the tick log began (no row
    /// there) keeps its events, without a node; the ticks after the migration
    /// follow on. The database is put back as v11 left it (v12 and v21 not
    /// applied), then reopened.
    @Test func v12KeepsEveryTicksEventsInItsRowOfTheTickLog() async throws {
        let location = try await PostgresTestServer.shared.freshDatabase()
        let store = try await PostgresStore.open(location)
        let (id, before) = try await closing(store) {
            let id = try await Trio.make(in: store).startAdventure().id
            for _ in 1...3 { try await store.playNextTick(of: id) }
            let before = try await store.record(of: id, includingOutbox: false).events
            #expect(Set(before.map(\.tick)) == [1, 2, 3])
            try await store.putGameTextBackAsV20Left()
            try await store.putIdsBackAsV24Left()
            try await store.runStatements([
                "CREATE TABLE tick_events (adventure TEXT NOT NULL REFERENCES adventure(id), tick INTEGER NOT NULL, events TEXT NOT NULL, PRIMARY KEY (adventure, tick))",
                "INSERT INTO tick_events SELECT adventure, tick, events FROM tick_log WHERE events IS NOT NULL",
                // Tick 1 as stored before v3: events and no row in the tick log.
                "DELETE FROM tick_log WHERE tick = 1",
                "ALTER TABLE tick_log DROP COLUMN events",
                "ALTER TABLE tick_log ALTER COLUMN node SET NOT NULL",
                "ALTER TABLE tick_log ALTER COLUMN stored_at SET NOT NULL",
                "DELETE FROM schema_migration WHERE name = 'v12-tick-log-events'",
            ])
            return (id, before)
        }
        let reopened = try await PostgresStore.open(location)
        try await closing(reopened) {
            #expect(try await reopened.appliedMigrations().suffix(5) == ["v12-tick-log-events", "v21-deflated-game-text",
                                                                         "v25-ids-as-codes-in-the-logs", "v26-outbox-holds-unfinished-pushes",
                                                                         "v27-pushes-claimed-in-commit-order"])
            #expect(try await reopened.record(of: id, includingOutbox: false).events == before)
            let logger = Logger(label: "tests.migration")
            let nodes = try await reopened.query("""
                SELECT l.tick, n.id FROM tick_log l LEFT JOIN node n ON n.code = l.node_code
                WHERE l.adventure_code = (SELECT code FROM adventure WHERE id = \(id.rawValue)) ORDER BY l.tick
                """, logger: logger).decodeAll((Int, String?).self)
            #expect(nodes.map(\.0) == [1, 2, 3])
            #expect(nodes[0].1 == nil && nodes[1].1 != nil && nodes[2].1 != nil)
            try await reopened.playNextTick(of: id)
            let after = try await reopened.record(of: id, includingOutbox: false).events
            #expect(Array(after.prefix(before.count)) == before)
            #expect(after.count > before.count && after.dropFirst(before.count).allSatisfy { $0.tick == 4 })
        }
    }

    /// A database from before v13 wrote each push's target, push type and
    /// priority again in its push log entries; v13 drops them there, and the log
    /// reads them from the push's message: every entry comes back as it was. An
    /// entry that says otherwise than its message stops the migration, and
    /// nothing is dropped. The database is put back as v12 left it, then reopened.
    @Test func v13ReadsThePushLogFromTheMessagesAndDropsNothingThatDiffers() async throws {
        let location = try await PostgresTestServer.shared.freshDatabase()
        let store = try await PostgresStore.open(location)
        let (id, before) = try await closing(store) {
            let trio = try await Trio.make(in: store)
            let adventure = try await trio.startAdventure()
            let activity = try await trio.registerActivities(for: adventure.id)[0]
            try await store.playNextTick(of: adventure.id) { _ in [update(activity, tick: 1, alert: true)] }
            try await store.playNextTick(of: adventure.id) { _ in [update(activity, tick: 2)] }
            let claimed = try await store.claimOutbox(limit: 2)
            _ = try await store.recordAndClaim([PushResult(claimed[0], .delivered(apnsID: "a-1")),
                                                PushResult(claimed[1], .rejected(status: 400, reason: "BadTopic", apnsID: "a-2"))],
                                               limit: 0)
            let before = try await store.pushLog(of: adventure.id)
            #expect(before.count == 2)
            // v23, which makes the columns v13 compares codes, undone first: it follows v13 again.
            try await store.putPushColumnsBackAsV22Left()
            try await store.runStatements([
                """
                ALTER TABLE push_log ADD COLUMN target_kind TEXT, ADD COLUMN target_id TEXT, ADD COLUMN push_type TEXT,
                    ADD COLUMN priority INTEGER
                """,
                """
                UPDATE push_log SET target_kind = m.target_kind, target_id = m.target_id, push_type = m.push_type, priority = m.priority
                FROM outbox_message m WHERE m.id = push_log.outbox
                """,
                "ALTER TABLE push_log ALTER COLUMN target_kind SET NOT NULL, ALTER COLUMN target_id SET NOT NULL, ALTER COLUMN push_type SET NOT NULL, ALTER COLUMN priority SET NOT NULL",
                "DELETE FROM schema_migration WHERE name = 'v13-lean-push-log'",
                // An entry that says another priority than its push.
                "UPDATE push_log SET priority = 5 WHERE apns_id = 'a-1'",
            ])
            return (adventure.id, before)
        }
        await #expect { try await PostgresStore.open(location) } throws: { error in
            "\(error)".contains("a push log entry says another target, push type or priority than its push")
        }
        // The columns are all there still; the entry is put right by hand.
        #expect(try await rawRows(in: location, "SELECT count(*)::text FROM push_log WHERE push_type IS NOT NULL") == [["2"]])
        _ = try await rawRows(in: location, "UPDATE push_log SET priority = 10 WHERE apns_id = 'a-1'")
        let reopened = try await PostgresStore.open(location)
        try await closing(reopened) {
            let applied = try await reopened.appliedMigrations()
            #expect(applied.suffix(6) == ["v13-lean-push-log", "v23-push-columns-as-codes", "v24-ids-compared-as-bytes",
                                          "v25-ids-as-codes-in-the-logs", "v26-outbox-holds-unfinished-pushes",
                                                                         "v27-pushes-claimed-in-commit-order"])
            #expect(try await reopened.pushLog(of: id) == before)
        }
    }

    /// v15 drops the foreign keys of what a tick and an answer append (the tick
    /// log, the messages, the push log) and no other: those rows are written only
    /// where their adventure or push has just been written or locked. A database
    /// with entries from before keeps them all, and they read back as they were.
    @Test func v15DropsTheLogsForeignKeysAndNoOther() async throws {
        let location = try await PostgresTestServer.shared.freshDatabase()
        let store = try await PostgresStore.open(location)
        let logger = Logger(label: "tests.migration")
        let foreignKeys = """
            SELECT conrelid::regclass::text || '.' || conname FROM pg_constraint WHERE contype = 'f' ORDER BY 1
            """
        let (id, before, events, keysBefore) = try await closing(store) {
            let trio = try await Trio.make(in: store)
            let adventure = try await trio.startAdventure()
            let activity = try await trio.registerActivities(for: adventure.id)[0]
            try await store.playNextTick(of: adventure.id) { _ in [update(activity, tick: 1, alert: true)] }
            let claimed = try await store.claimOutbox(limit: 1)
            _ = try await store.recordAndClaim([PushResult(claimed[0], .delivered(apnsID: "a-1"))], limit: 0)
            let before = try await store.pushLog(of: adventure.id)
            #expect(before.count == 1)
            let events = try await store.record(of: adventure.id, includingOutbox: false).events
            // Put back as v14 left it, v25 (which the keys' columns change) undone first.
            try await store.putIdsBackAsV24Left()
            try await store.runStatements([
                "ALTER TABLE tick_log ADD CONSTRAINT tick_log_adventure_fkey FOREIGN KEY (adventure) REFERENCES adventure(id)",
                """
                ALTER TABLE outbox_message ADD CONSTRAINT outbox_message_adventure_fkey FOREIGN KEY (adventure)
                    REFERENCES adventure(id)
                """,
                """
                ALTER TABLE push_log ADD CONSTRAINT push_log_outbox_fkey FOREIGN KEY (outbox) REFERENCES outbox(id),
                    ADD CONSTRAINT push_log_adventure_fkey FOREIGN KEY (adventure) REFERENCES adventure(id)
                """,
                "DELETE FROM schema_migration WHERE name = 'v15-logs-without-foreign-keys'",
            ])
            let keys = try await store.query(PostgresQuery(unsafeSQL: foreignKeys), logger: logger).decodeAll(String.self)
            return (adventure.id, before, events, keys)
        }
        #expect(keysBefore.contains("push_log.push_log_outbox_fkey") && keysBefore.contains("command.command_adventure_fkey"))
        let reopened = try await PostgresStore.open(location)
        try await closing(reopened) {
            #expect(try await reopened.appliedMigrations().suffix(4) == ["v15-logs-without-foreign-keys",
                                                                         "v25-ids-as-codes-in-the-logs", "v26-outbox-holds-unfinished-pushes",
                                                                         "v27-pushes-claimed-in-commit-order"])
            let keys = try await reopened.query(PostgresQuery(unsafeSQL: foreignKeys), logger: logger).decodeAll(String.self)
            #expect(keys == keysBefore.filter {
                !["tick_log.tick_log_adventure_fkey", "outbox_message.outbox_message_adventure_fkey",
                  "push_log.push_log_outbox_fkey", "push_log.push_log_adventure_fkey"].contains($0)
            })
            #expect(keys.count == keysBefore.count - 4)
            #expect(try await reopened.pushLog(of: id) == before)
            #expect(try await reopened.record(of: id, includingOutbox: false).events == events)
        }
    }

    /// v16: no index of `adventure` holds a column a running tick changes, so
    /// that tick's update stays on its page (HOT) with no index entry, and half
    /// of each page is kept for those versions.
    @Test func v16LeavesNoIndexOnWhatARunningTickChanges() async throws {
        let location = try await PostgresTestServer.shared.freshDatabase()
        let store = try await PostgresStore.open(location)
        let logger = Logger(label: "tests.migration")
        try await closing(store) {
            let definitions = try await store.query(PostgresQuery(unsafeSQL: """
                SELECT pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid = 'adventure'::regclass
                """), logger: logger).decodeAll(String.self)
            #expect(definitions.count == 5)
            for definition in definitions {
                for changed in ["state", "last_tick", "next_tick_at", "lease_until"] {
                    #expect(definition.range(of: "\\b\(changed)\\b", options: .regularExpression) == nil,
                            "\(definition) holds \(changed)")
                }
            }
            let options = try await store.query(PostgresQuery(unsafeSQL: """
                SELECT array_to_string(reloptions, ',') FROM pg_class WHERE oid = 'adventure'::regclass
                """), logger: logger).decodeAll(String.self)
            #expect(options == ["fillfactor=50"])
        }
    }

    /// v19: the push log keeps the two indexes it is read through and no key,
    /// and its entries are read back whole and in order.
    @Test func v19LeavesThePushLogTheIndexesItIsReadThrough() async throws {
        let location = try await PostgresTestServer.shared.freshDatabase()
        let store = try await PostgresStore.open(location)
        let logger = Logger(label: "tests.migration")
        try await closing(store) {
            let indexes = try await store.query(PostgresQuery(unsafeSQL: """
                SELECT indexname FROM pg_indexes WHERE tablename = 'push_log' ORDER BY indexname
                """), logger: logger).decodeAll(String.self)
            #expect(indexes == ["push_log_by_adventure_in_commit_order", "push_log_by_sent_at"])
            let trio = try await Trio.make(in: store)
            let adventure = try await trio.startAdventure()
            let activities = try await trio.registerActivities(for: adventure.id)
            for tick in 1...2 {
                try await store.playNextTick(of: adventure.id) { _ in activities.map { update($0, tick: tick, alert: true) } }
                for push in try await store.claimOutbox(limit: 10) { try await store.recordDelivered(push, apnsID: "\(push.id)") }
            }
            let log = try await store.pushLog(of: adventure.id)
            #expect(log.map(\.apnsID) == log.map { "\($0.outbox)" } && log.count == 6)
            #expect(log.map(\.outbox) == log.map(\.outbox).sorted())
        }
    }

    /// v20 counts changes to an adventure's reachable activities from the
    /// migration on. Activities registered before it are read as they are, at a
    /// count of none, and a change after it moves the count.
    @Test func v20CountsChangesFromActivitiesStoredBefore() async throws {
        let location = try await PostgresTestServer.shared.freshDatabase()
        let store = try await PostgresStore.open(location)
        let (trio, adventure, activities) = try await closing(store) {
            let trio = try await Trio.make(in: store)
            let adventure = try await trio.startAdventure().id
            let activities = try await trio.registerActivities(for: adventure)
            try await store.runStatements([
                "DROP TABLE activity_change", "DROP TRIGGER live_activity_changed ON live_activity",
                "DROP TRIGGER activity_token_changed ON activity_token", "DROP FUNCTION note_activity_change",
                "DROP FUNCTION note_activity_token_change", "DELETE FROM schema_migration WHERE name = 'v20-activity-changes'",
            ])
            return (trio, adventure, activities)
        }
        let reopened = try await PostgresStore.open(location)
        try await closing(reopened) {
            #expect(try await reopened.appliedMigrations().last == "v20-activity-changes")
            try await expectActivityChangesCountedFromNone(in: reopened, trio: trio, adventure: adventure, activities: activities)
        }
    }
}
