import Foundation
import Game
import GRDB
import PushPolicy
import Store
@testable import StoreSQLite
import StoreTestSupport
import Testing
import Vocabulary

/// v12 splits each push into its message and its progress, making the outbox
/// again under its name. A file from before comes through whole.
@Suite struct OutboxMigrationTests {
    /// Pushes as v11 stored them (waiting, being sent, answered with an entry in the
    /// push log, superseded), the outbox's numbering past its last row (a row was
    /// deleted): every push reads back as it was, the push log still finds what it
    /// sent, and the next push queued is numbered after all of them.
    @Test func v12KeepsEveryPushWholeAndTheNumbering() async throws {
        let scratch = try ScratchDatabase()
        let id: AdventureID, activity: ActivityID
        let rows: [(state: String, attempts: Int, outcome: String?, claimedBy: String?, tick: Int, alert: Bool)] = [
            ("sent", 1, nil, "old", 1, true), ("superseded", 0, "a newer push", nil, 1, false),
            ("sending", 1, nil, "old", 2, false), ("pending", 0, nil, nil, 3, false),
        ]
        do {
            let store = try scratch.open(upTo: "v11-console")
            let trio = try await Trio.make(in: store)
            id = try await trio.startAdventure().id
            activity = try await trio.registerActivitiesBeforeV14(for: id, in: store)[0]
            try await store.rawWrite { db in
                for (index, row) in (rows + [("dropped", 0, "gone", nil, 3, false)]).enumerated() {
                    try db.execute(sql: """
                        INSERT INTO outbox (adventure, targetKind, targetID, pushType, topic, priority, expiration, payload, reason,
                                            hasAlert, isEnd, supersedable, tick, state, outcome, attempts, nextAttemptAt,
                                            claimedAt, claimedBy, createdAt)
                        VALUES (?, 'liveActivity', ?, 'liveactivity', 'app.topic', ?, 4000000000, ?, ?, ?, 0, ?, ?, ?, ?, ?,
                                '2025-01-01 00:00:00.000', NULL, ?, ?)
                        """, arguments: [id.rawValue, activity.rawValue, row.alert ? 10 : 5, Data("{\"push\":\(index)}".utf8),
                                         row.alert ? "alert" : "routine", row.alert, !row.alert, row.tick, row.state, row.outcome,
                                         row.attempts, row.claimedBy, "2025-01-01 00:00:0\(index).000"])
                }
                try db.execute(sql: """
                    INSERT INTO pushLog (outbox, adventure, targetKind, targetID, token, pushType, priority, status, reason, apnsID,
                                         attempts, sentAt)
                    VALUES ((SELECT MIN(id) FROM outbox), ?, 'liveActivity', ?, ?, 'liveactivity', 10, 200, NULL, 'apns-1', 1,
                            '2025-01-01 00:00:05.000')
                    """, arguments: [id.rawValue, activity.rawValue, Tokens.make(0).hex])
                try db.execute(sql: "DELETE FROM outbox WHERE id = (SELECT MAX(id) FROM outbox)")
            }
        }
        let store = try scratch.open()
        let outbox = try await store.outbox(of: id)
        #expect(outbox.map(\.state.rawValue) == rows.map(\.state))
        #expect(outbox.map(\.attempts) == rows.map(\.attempts))
        #expect(outbox.map(\.outcome) == rows.map(\.outcome))
        #expect(outbox.map(\.tick) == rows.map(\.tick))
        #expect(outbox.map(\.message.payload) == rows.indices.map { Data("{\"push\":\($0)}".utf8) })
        #expect(outbox.map(\.message.priority) == rows.map { $0.alert ? .high : .low })
        #expect(outbox.map(\.message.supersedable) == rows.map { !$0.alert })
        #expect(outbox.map(\.message.topic.rawValue) == Array(repeating: "app.topic", count: rows.count))
        #expect(outbox.map(\.createdAt.timeIntervalSince1970) == rows.indices.map { 1_735_689_600 + Double($0) })
        let log = try await store.pushLog(of: id)
        #expect(log.map(\.payload) == [Data("{\"push\":0}".utf8)])
        #expect(log.map(\.decision) == ["alert"])
        // The push left being sent by a stopped process goes back to waiting, as before.
        #expect(try await store.recoverInterruptedSends() == 1)

        try await store.playNextTick(of: id) { _ in [update(activity, tick: 4)] }
        let after = try await store.outbox(of: id)
        #expect(after.count == rows.count + 1)
        #expect(try #require(after.last).id.rawValue == outbox.map(\.id.rawValue).max()! + 2, "numbered after the deleted row")
        #expect(after.dropLast().filter { $0.state == .pending }.isEmpty, "the new push supersedes those waiting")
        #expect(try await store.rawRead { try Row.fetchAll($0, sql: "PRAGMA foreign_key_check").count } == 0)
        #expect(try await store.rawRead { try String.fetchOne($0, sql: "PRAGMA integrity_check") } == "ok")
    }
}

/// v13 drops the outbox's index by target and the push log's by adventure. A push
/// that was being sent when a newer one to its target was queued learns of it, so
/// if it comes back it is still superseded; the push log is still found.
@Suite struct IndexesInWriteOrderMigrationTests {
    @Test func v13KeepsWhatARetryWouldSupersedeAndThePushLog() async throws {
        let scratch = try ScratchDatabase()
        let id: AdventureID, activity: ActivityID
        // Sent (and logged), being sent by a process that stopped, and queued while it was out.
        let rows: [(state: String, tick: Int, supersedable: Bool)] = [("sent", 1, false), ("sending", 2, true), ("pending", 3, true)]
        do {
            let store = try scratch.open(upTo: "v12-outbox-message")
            let trio = try await Trio.make(in: store)
            id = try await trio.startAdventure().id
            activity = try await trio.registerActivitiesBeforeV14(for: id, in: store)[0]
            try await store.rawWrite { db in try insertPushesAsBeforeV15(rows, adventure: id, activity: activity, db) }
        }
        let store = try scratch.open()
        #expect(try await store.pushLog(of: id).map(\.payload) == [Data("{\"push\":0}".utf8)])
        #expect(try await store.recoverInterruptedSends() == 1)
        // The push that was out comes back, and the newer one queued meanwhile goes instead.
        #expect(try await store.claimOutbox(limit: 10).map(\.tick) == [3])
        #expect(try await store.outbox(of: id).map(\.state) == [.sent, .superseded, .sending])
        let indexes = try await store.rawRead { try String.fetchAll($0, sql: "SELECT name FROM sqlite_schema WHERE type = 'index'") }
        #expect(!indexes.contains("outboxMessage_byTarget") && !indexes.contains("pushLog_byAdventure"))
        #expect(try await store.rawRead { try String.fetchOne($0, sql: "PRAGMA integrity_check") } == "ok")
    }
}

/// v14 moves the activities' budgets into their adventure's row. Each comes over
/// as it was, is read where it was read, and the next tick's budget replaces it.
@Suite struct AdventureLedgersMigrationTests {
    @Test func v14KeepsEveryBudgetWithItsAdventure() async throws {
        let scratch = try ScratchDatabase()
        let adventure: AdventureID, other: AdventureID
        let spent = #"{"highPrioritySent":[1005,1009],"lastPushAt":1009}"#
        do {
            let store = try scratch.open(upTo: "v13-indexes-in-write-order")
            let trio = try await Trio.make(in: store), second = try await Trio.make(in: store)
            adventure = try await trio.startAdventure().id
            other = try await second.startAdventure(seed: 9).id
            try await store.rawWrite { [players = trio.players.map(\.id.rawValue)] db in
                for (activity, owner, of, ledger) in [("b activity", players[1], adventure, #"{"highPrioritySent":[]}"#),
                                                      ("a activity", players[0], adventure, spent),
                                                      ("elsewhere", players[2], other, spent)] {
                    try db.execute(sql: """
                        INSERT INTO liveActivity (id, player, adventure, heroID, frequentUpdates, locale, status, ledger, createdAt)
                        VALUES (?, ?, ?, 'power-panda', 0, 'en', 'active', ?, '2025-01-01 00:00:00.000')
                        """, arguments: [activity, owner, of.rawValue, ledger])
                }
            }
        }
        let store = try scratch.open()
        let ledgers = try await store.rawRead { db in
            try [adventure, other].map { try String.fetchOne(db, sql: "SELECT ledgers FROM adventure WHERE id = ?", arguments: [$0.rawValue]) }
        }
        #expect(ledgers == ["a activity\t\(spent)\nb activity\t{\"highPrioritySent\":[]}", "elsewhere\t\(spent)"])
        var expected = BudgetLedger()
        expected.highPrioritySent = [1005, 1009]
        expected.lastPushAt = 1009
        #expect(try await store.liveActivity("a activity").ledger == expected)
        #expect(try await store.liveActivity("b activity").ledger == BudgetLedger())
        #expect(try await store.liveActivity("elsewhere").ledger == expected)
        let columns = try await store.rawRead { try Row.fetchAll($0, sql: "PRAGMA table_info(liveActivity)").map { $0["name"] as String } }
        #expect(!columns.contains("ledger"))
        #expect(try await store.rawRead { try String.fetchOne($0, sql: "PRAGMA integrity_check") } == "ok")
    }
}

/// v15 drops the index of pushes by adventure: a tick's row names the pushes it
/// queued, and those queued outside a tick or before v15 keep a partial index.
/// Every push of an adventure is still found, in order, old and new alike.
@Suite struct PushesThroughTicksMigrationTests {
    @Test func v15FindsEveryPushOfAnAdventureOldAndNew() async throws {
        let scratch = try ScratchDatabase()
        let id: AdventureID, activities: [ActivityID]
        do {
            let store = try scratch.open(upTo: "v14-adventure-ledgers")
            let trio = try await Trio.make(in: store)
            id = try await trio.startAdventure().id
            activities = try await trio.registerActivities(for: id)
            // Two pushes as v14 queued them, at the start and at tick 1; the first answered.
            try await store.rawWrite { db in
                try insertPushesAsBeforeV15([("sent", 0, false), ("pending", 1, false)], adventure: id, activity: activities[0], db)
            }
        }
        let store = try scratch.open()
        // Tick 1, with its events and three pushes; a push queued outside a tick, as
        // a follower's is; tick 2 with a push and no events (its row has none).
        try await store.playNextTick(of: id) { _ in activities.map { update($0, tick: 1, alert: true) } }
        try await store.rawWrite { db in
            try SQLiteStore.enqueue(update(activities[1], tick: 1, alert: true), adventure: id, tick: 1, at: Date().databaseValue, db)
        }
        let inputs = try await store.tickInputs(of: id)
        let game = try Adventure(setup: inputs.adventure.setup, content: ShippedContent.game)
        let (state, _) = game.tick(inputs.adventure.state, commands: [])
        try await store.recordTick(adventure: id, tick: 2, state: state, events: [], appliedCommandIDs: [],
                                   outbox: [update(activities[2], tick: 2, alert: true)], ledgers: [:])
        // Another adventure's pushes between them are not its.
        let other = try await Trio.make(in: store)
        let otherID = try await other.startAdventure(seed: 9).id
        let otherActivities = try await other.registerActivities(for: otherID)
        try await store.playNextTick(of: otherID) { _ in otherActivities.map { update($0, tick: 1, alert: true) } }

        let outbox = try await store.outbox(of: id)
        #expect(outbox.map(\.tick) == [0, 1, 1, 1, 1, 1, 2])
        #expect(outbox.map(\.id.rawValue) == outbox.map(\.id.rawValue).sorted())
        #expect(outbox.prefix(2).map(\.message.payload) == [Data("{\"push\":0}".utf8), Data("{\"push\":1}".utf8)])
        #expect(try await store.outbox(of: otherID).count == 3)
        let record = try await store.record(of: id, includingOutbox: true)
        #expect(record.outboxCount == 7 && record.outbox?.map(\.id) == outbox.map(\.id))
        #expect(try await store.record(of: id, includingOutbox: false).outboxCount == 7)
        #expect(Set(record.events.map(\.tick)) == [1], "tick 2's row holds no events")
        #expect(try await store.pushLog(of: id).map(\.payload) == [Data("{\"push\":0}".utf8)])
        #expect(try await store.rawRead { try String.fetchOne($0, sql: "PRAGMA integrity_check") } == "ok")
    }
}
