import Foundation
import Game
import GRDB
import PushPolicy
import Store
@testable import StoreSQLite
import StoreTestSupport
import Testing
import Vocabulary

/// How the SQLite engine reaches its rows: through which indexes, and what a
/// reader sees while the one writer writes.
@Suite struct SQLiteQueryTests {
    /// The dispatcher claims and supersedes many times a second: those statements,
    /// and a drain's count and a start's recovery, must reach the open rows through
    /// the indexes of pending and sending rows, not walk every row the outbox has
    /// ever held.
    @Test func claimingSupersedingAndCountingReadOnlyTheOpenRows() async throws {
        let store = try ScratchDatabase().open()
        let plans = try await store.rawRead { db in
            let statements: [(String, StatementArguments)] = [
                (SQLiteStore.nextPendingSQL, [0, Date(), 10]),
                (SQLiteStore.openSupersedableSQL, ["liveActivity", "activity-1"]),
                (SQLiteStore.unsettledCountSQL, []),
                (SQLiteStore.recoverSQL, [QueuedPushRules.interruptedReason, "claimant"]),
            ]
            return try statements.map { sql, arguments in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String }
            }
        }
        let openRowIndexes = ["outbox_pending", "outbox_pendingSupersedable", "outbox_sendingSupersedable", "outbox_sending"]
        for steps in plans {
            let outboxSteps = steps.filter { $0.contains("outbox") }
            #expect(!outboxSteps.isEmpty)
            for step in outboxSteps {
                #expect(openRowIndexes.contains { step.contains("INDEX \($0) ") || step.hasSuffix("INDEX \($0)") },
                        "\(step)")
            }
        }
        // The claim reads each push's activity and its one valid token by key.
        #expect(plans[0].contains { $0.hasPrefix("SEARCH a USING INDEX sqlite_autoindex_liveActivity_1 (id=?)") }, "\(plans[0])")
        #expect(plans[0].contains { $0.hasPrefix("SEARCH t USING INDEX activityToken_oneValid (activity=?)") }, "\(plans[0])")
    }

    /// A tick of a running adventure writes the indexes whose key it moves (when
    /// the next tick is due) and no other: not the one running adventure per
    /// party, nor the finished adventures, which SQLite would rewrite if the
    /// statement set the status, even to the same value. The tick that ends the
    /// adventure does write them.
    @Test func aRunningTickWritesOnlyTheAdventureIndexesItMoves() async throws {
        let store = try ScratchDatabase().open()
        let (running, ending) = try await store.rawRead { db in
            let roots = Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: """
                SELECT rootpage, name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'adventure'
                """).map { ($0[0] as Int, $0[1] as String) })
            // The indexes whose entries the statement's program deletes or inserts.
            func indexesWritten(_ sql: String) throws -> Set<String> {
                let arguments = StatementArguments(Array(repeating: nil as String?, count: sql.count { $0 == "?" }))
                let program = try Row.fetchAll(db, sql: "EXPLAIN " + sql, arguments: arguments)
                var opened: [Int: String] = [:]
                for step in program where step["opcode"] as String == "OpenWrite" { opened[step["p1"]] = roots[step["p2"] as Int] }
                return Set(program.filter { ["IdxInsert", "IdxDelete"].contains($0["opcode"] as String) }
                    .compactMap { opened[$0["p1"] as Int] })
            }
            return (try indexesWritten(SQLiteStore.runningTickSQL), try indexesWritten(SQLiteStore.endingTickSQL))
        }
        #expect(running == ["adventure_due"])
        #expect(ending.isSuperset(of: ["adventure_due", "adventure_oneRunningPerParty", "adventure_finished"]), "\(ending)")
    }

    /// The ticker's read of what is due runs several times a second: the due
    /// adventures come through their index, in its order, and whether commands wait
    /// for each is one probe of the commands' index, not a read of them.
    @Test func theDueAdventuresAndTheirWaitingCommandsAreReadThroughIndexes() async throws {
        let store = try ScratchDatabase().open()
        let steps = try await store.rawRead { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + SQLiteStore.dueAdventuresSQL, arguments: [0, 0, 0, 10])
                .map { $0["detail"] as String }
        }
        #expect(steps.contains { $0.hasPrefix("SEARCH adventure USING INDEX adventure_due") }, "\(steps)")
        #expect(steps.contains { $0.hasPrefix("SEARCH command USING COVERING INDEX command_byAdventure (adventure=? AND tick=?)") },
                "\(steps)")
        // Sorted by the index; only adventures due at the same instant are put in order of id.
        #expect(!steps.contains { $0 == "USE TEMP B-TREE FOR ORDER BY" || $0.hasPrefix("SCAN") }, "\(steps)")
    }

    /// The console's pages stay quick however many parties and adventures there
    /// are: a page of the directory is one range of its index, in its order (no
    /// sort of every party), and so are finished adventures and the last hour's answers.
    @Test func theConsolesPagesReadOneIndexRangeEach() async throws {
        let store = try ScratchDatabase().open()
        let cursor = PartyDirectoryCursor(name: "M", id: "x")
        let plans = try await store.rawRead { db in
            func directory(_ search: PartySearch?, _ after: PartyDirectoryCursor?) -> (String, StatementArguments, String) {
                let (sql, arguments) = SQLiteStore.directoryStatement(search: search, after: after, limit: 26)
                return (sql, arguments, "party_byNameAndID")
            }
            let statements: [(String, StatementArguments, String)] = [
                directory(nil, nil), directory(nil, cursor), directory(PartySearch("rang"), cursor),
                (SQLiteStore.finishedSQL, [Int.max, "", 26], "adventure_finished"),
                (SQLiteStore.answersSQL, [Date()], "pushLog_bySentAt"),
            ]
            return try statements.map { sql, arguments, index in
                (index, try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String })
            }
        }
        for (index, steps) in plans {
            #expect(steps.contains { $0.contains("INDEX \(index)") }, "\(index): \(steps)")
            if index != "pushLog_bySentAt" {
                #expect(!steps.contains { $0.contains("TEMP B-TREE") }, "no sort of every row: \(steps)")
            }
        }
    }

    @Test func aReaderSeesTheLastCommittedTickWhileATickIsBeingWritten() async throws {
        let store = try ScratchDatabase().open()
        let adventure = try await Trio.make(in: store).startAdventure()
        let inputs = try await store.tickInputs(of: adventure.id)
        let state = try Adventure(setup: inputs.adventure.setup, content: ShippedContent.game).tick(inputs.adventure.state).state
        #expect(try readWhileWriting(store, adventure.id, state) == (lastTick: 0, events: 0))
        #expect(try await store.adventure(adventure.id).lastTick == 1)
    }

    /// Writes half a tick, and from inside that transaction reads on another
    /// connection of the pool: WAL gives it the last committed snapshot.
    private func readWhileWriting(_ store: SQLiteStore, _ adventure: AdventureID,
                                  _ state: AdventureState) throws -> (lastTick: Int, events: Int) {
        try store.pool.write { db in
            try db.execute(sql: "UPDATE adventure SET lastTick = 1, nextTickAt = nextTickAt + 2, state = ? WHERE id = ?",
                           arguments: [String(decoding: try JSONEncoder().encode(state), as: UTF8.self), adventure.rawValue])
            try db.execute(sql: "INSERT INTO tickEvents (adventure, tick, events) VALUES (?, 1, '{}')",
                           arguments: [adventure.rawValue])
            return try store.pool.read { reader in
                (try Int.fetchOne(reader, sql: "SELECT lastTick FROM adventure")!,
                 try Int.fetchOne(reader, sql: "SELECT COUNT(*) FROM tickEvents")!)
            }
        }
    }

    /// v13, v15 and v16 left no index by adventure or by target on the push log,
    /// the messages and the tick rows: each would take a page of the WAL per tick.
    /// What read through them reads a range of ids instead (the log onward from a
    /// cursor, the pushes queued while one was out, the pushes of a tick), the
    /// open pushes (the channel sweep's "nothing left to send to it") or the chain
    /// of an adventure's tick rows. None walks every row.
    @Test func whatV13ReadsWithoutIndexesByAdventureOrTargetIsARangeOfIDs() async throws {
        let store = try ScratchDatabase().open()
        let plans = try await store.rawRead { db in
            try [SQLiteStore.pushLogOnwardSQL, SQLiteStore.pushLogThroughPushesSQL, SQLiteStore.hasNewerPushSQL,
                 SQLiteStore.openSupersedableSQL, SQLiteStore.channelsToDeleteSQL, SQLiteStore.outboxEntriesSQL,
                 SQLiteStore.tickEventsSQL].map { sql in
                // Numbered (?1, ?2, …) or not: as many arguments as the statement takes.
                let numbered = (1...9).filter { sql.contains("?\($0)") }.max()
                let arguments = StatementArguments(Array(repeating: "1" as String?, count: numbered ?? sql.count { $0 == "?" }))
                return try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String }
            }
        }
        #expect(plans[0].first { $0.contains("pushLog") }?.contains("USING INTEGER PRIMARY KEY (rowid>?)") == true, "\(plans[0])")
        #expect(plans[1].contains { $0.contains("INDEX pushLog_byOutbox") }, "\(plans[1])")
        // An adventure's pushes (v15): through its ticks' rows, each found by id
        // from the one after it (v16), and the ranges they name, and the partial
        // index of those queued outside a tick.
        for plan in [plans[1], plans[5], plans[6]] {
            #expect(plan.contains { $0.hasPrefix("SEARCH adventure USING") && $0.hasSuffix("(id=?)") }, "\(plan)")
            #expect(plan.contains { $0.contains("SEARCH t USING INTEGER PRIMARY KEY (rowid=?)") }, "\(plan)")
        }
        for plan in [plans[1], plans[5]] {
            #expect(plan.contains { $0.contains("SEARCH m USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)") }, "\(plan)")
            #expect(plan.contains { $0.contains("INDEX outboxMessage_outsideTicks") }, "\(plan)")
        }
        #expect(plans[2].first { $0.contains(" m ") }?.contains("INTEGER PRIMARY KEY (rowid>? AND rowid<?)") == true, "\(plans[2])")
        #expect(plans[3].contains { $0.contains("INDEX outbox_sendingSupersedable") }, "\(plans[3])")
        #expect(plans[3].contains { $0.contains("INDEX outbox_pendingSupersedable") }, "\(plans[3])")
        #expect(plans[4].filter { $0.contains(" o ") || $0.contains("outbox") }.allSatisfy {
            $0.contains("INDEX outbox_pending") || $0.contains("INDEX outbox_sending")
        }, "\(plans[4])")
        #expect(!plans[4].contains { $0.contains("outboxMessage") }, "\(plans[4])")
        // A scan only of an index of open rows (pending, sending, open channels)
        // or of the adventure's pushes just found, never of a table.
        for steps in plans {
            #expect(!steps.contains { $0.hasPrefix("SCAN") && !$0.contains(" USING INDEX ") && !["SCAN pushes", "SCAN tickRows"].contains($0) },
                    "\(steps)")
        }
    }

    /// The log read onward from a cursor and through the adventure's pushes gives
    /// the same entries in the same order, from every cursor, a page at a time,
    /// with another adventure's entries between and a push answered after a newer one.
    @Test func thePushLogReadsTheSameOnwardAndThroughTheAdventuresPushes() async throws {
        let store = try ScratchDatabase().open()
        let first = try await Trio.make(in: store), second = try await Trio.make(in: store)
        let adventures = [try await first.startAdventure().id, try await second.startAdventure(seed: 9).id]
        let activities = [try await first.registerActivities(for: adventures[0]), try await second.registerActivities(for: adventures[1])]
        var heldBack: ClaimedPush?
        for tick in 1...4 {
            for (adventure, its) in zip(adventures, activities) {
                try await store.playNextTick(of: adventure) { _ in its.map { update($0, tick: tick, alert: true) } }
            }
            for push in try await store.claimOutbox(limit: 20) {
                if heldBack == nil { heldBack = push; continue }
                try await store.record(.delivered(apnsID: "a"), for: push)
            }
        }
        try await store.record(.delivered(apnsID: "late"), for: try #require(heldBack))

        let (onward, through) = try await store.rawRead { db in
            let last = try Int64.fetchOne(db, sql: "SELECT max(id) FROM pushLog")!
            func pages(_ adventure: AdventureID, _ limit: Int64) throws -> [[Int64]] {
                try (0...last).flatMap { cursor in
                    try [1, 2, 100].map { size in
                        try SQLiteStore.pushLogEntries(of: adventure, after: cursor, limit: size, onwardReadLimit: limit, db)
                            .map(\.cursor.entry)
                    }
                }
            }
            return (try adventures.map { try pages($0, .max) }, try adventures.map { try pages($0, 0) })
        }
        #expect(onward == through)
        #expect(onward.map { $0[2].count } == [12, 12], "every entry of each adventure from the start")
        let all = try await store.pushLog(of: adventures[0])
        #expect(all.count == 12 && all.allSatisfy { $0.adventure == adventures[0] })
        #expect(all.last?.apnsID == "late", "in the order answered")
    }
}
