import Foundation
import Game
import GRDB
import PushPolicy
import Store
import Vocabulary

extension SQLiteStore {
    public func record(of adventure: AdventureID, includingOutbox: Bool) async throws -> AdventureRecord {
        try await read { db in
            let stored = try Self.requireAdventure(adventure, db).value()
            // The members' activities: a follower's has no hero and no part in the game.
            let activities = try LiveActivityRow.fetchAll(db, sql: """
                SELECT * FROM liveActivity WHERE adventure = ? AND heroID IS NOT NULL ORDER BY createdAt, id
                """, arguments: [adventure.rawValue]).compactMap(\.recipient)
            let events = TickEventsText.texts(try Self.tickEvents(of: adventure, db))
            // Each read of the pushes walks the tick rows' chain: counted from the
            // entries when they are read anyway.
            let outbox = includingOutbox ? try Self.outboxEntries(of: adventure, db) : nil
            let outboxCount = try outbox?.count ?? Int.fetchOne(
                db.cachedStatement(sql: "WITH RECURSIVE \(Self.adventurePushesCTE) SELECT COUNT(*) FROM pushes"),
                arguments: [adventure.rawValue]) ?? 0
            return AdventureRecord(adventure: stored, commands: try Self.appliedCommands(of: adventure, db), events: events,
                                   outbox: outbox, outboxCount: outboxCount, activities: activities)
        }
    }

    static func appliedCommands(of adventure: AdventureID, _ db: Database) throws -> [ScheduledCommand] {
        try CommandRow.fetchAll(db, sql: """
            SELECT * FROM command WHERE adventure = ? AND tick IS NOT NULL ORDER BY tick, id
            """, arguments: [adventure.rawValue]).map { ScheduledCommand(tick: $0.tick!, command: try $0.decodedCommand()) }
    }

    /// `tickRows(id)`: the ids of the adventure's (`?1`) tick rows, newest first,
    /// through the chain that starts at the adventure's `lastTickRow` (v16), each
    /// step a lookup by id. For a `WITH RECURSIVE`.
    static let adventureTickRowsCTE = """
        tickRows(id) AS (
            SELECT lastTickRow FROM adventure WHERE id = ?1 AND lastTickRow IS NOT NULL
            UNION ALL
            SELECT t.previous FROM tickRows CROSS JOIN tickEvents t ON t.id = tickRows.id WHERE t.previous IS NOT NULL)
        """

    /// `pushes(id)`, with `tickRows`: the ids of the adventure's pushes, those its
    /// ticks queued, through the ranges their rows name (v15), and those queued
    /// outside a tick or before v15, through their partial index. Not in order.
    /// For a `WITH RECURSIVE`. `NOT INDEXED`: knowing nothing of how many rows the
    /// chain holds, SQLite would otherwise build an index of every message by
    /// adventure for each read rather than read the ranges.
    static let adventurePushesCTE = """
        \(adventureTickRowsCTE),
        pushes(id) AS (
            SELECT m.id FROM tickRows CROSS JOIN tickEvents t ON t.id = tickRows.id
            CROSS JOIN outboxMessage m NOT INDEXED ON m.id BETWEEN t.firstPush AND t.lastPush
            WHERE t.firstPush IS NOT NULL AND m.adventure = ?1 AND m.inTickRange
            UNION ALL
            SELECT id FROM outboxMessage INDEXED BY outboxMessage_outsideTicks
            WHERE adventure = ?1 AND NOT inTickRange AND adventure IS NOT NULL)
        """

    static let outboxEntriesSQL = """
        WITH RECURSIVE \(adventurePushesCTE)
        SELECT \(OutboxRow.columns) FROM pushes CROSS JOIN outboxMessage m ON m.id = pushes.id JOIN outbox o ON o.id = m.id
        ORDER BY m.id
        """

    static func outboxEntries(of adventure: AdventureID, _ db: Database) throws -> [OutboxEntry] {
        try OutboxRow.fetchAll(db.cachedStatement(sql: outboxEntriesSQL), arguments: [adventure.rawValue]).map { try $0.entry() }
    }

    static func eventLog(of adventure: AdventureID, _ db: Database) throws -> [LoggedEvent] {
        try TickEventsText.decoded(try tickEvents(of: adventure, db))
    }

    /// The adventure's rows of events, as stored (`TickEventsText`), in tick order;
    /// not the rows of ticks that only queued pushes (v15). Through the chain of
    /// its tick rows (v16), each row's id with it: an id without a row (a row
    /// deleted from the file by hand) means the chain is broken there, and then
    /// every row of the adventure still in the file is read, table and all, so
    /// that what was removed shows as missing from its own tick on, not as the
    /// whole log missing.
    static let tickEventsSQL = """
        WITH RECURSIVE \(adventureTickRowsCTE)
        SELECT t.tick, t.events FROM tickRows LEFT JOIN tickEvents t ON t.id = tickRows.id
        WHERE t.id IS NULL OR t.events != '' ORDER BY t.tick
        """

    static let everyTickEventsSQL = "SELECT tick, events FROM tickEvents NOT INDEXED WHERE adventure = ? AND events != '' ORDER BY tick"

    static func tickEvents(of adventure: AdventureID, _ db: Database) throws -> [(tick: Int, events: String)] {
        let chained = try Row.fetchAll(db.cachedStatement(sql: tickEventsSQL), arguments: [adventure.rawValue])
        let rows = chained.contains { $0[0] == nil }
            ? try Row.fetchAll(db, sql: everyTickEventsSQL, arguments: [adventure.rawValue]) : chained
        return rows.map { (tick: $0[0], events: $0[1]) }
    }
}
