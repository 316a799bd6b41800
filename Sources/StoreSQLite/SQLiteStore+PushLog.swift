import Foundation
import GRDB
import Store
import Vocabulary

extension SQLiteStore {
    /// Every push decided for the adventure and what became of it, in the order decided.
    public func outbox(of adventure: AdventureID) async throws -> [OutboxEntry] {
        try await read { db in try Self.outboxEntries(of: adventure, db) }
    }

    /// What was sent for the adventure and what APNs answered, in the order sent.
    public func pushLog(of adventure: AdventureID) async throws -> [PushLogEntry] {
        try await read { db in
            _ = try Self.requireAdventure(adventure, db)
            return try Self.pushLogEntries(of: adventure, after: 0, limit: -1, db).map(\.entry)
        }
    }

    /// One writer commits the log's entries in the order of their numbers, so a
    /// reader's cursor is the last number it read (`batch` is always 0).
    public func pushLog(of adventure: AdventureID, after cursor: PushLogCursor, limit: Int) async throws -> PushLogPage {
        try await read { db in
            _ = try Self.requireAdventure(adventure, db)
            let entries = try Self.pushLogEntries(of: adventure, after: cursor.entry, limit: max(0, limit), db)
            let waiting = try OutboxRow.fetchAll(db.cachedStatement(sql: """
                SELECT \(OutboxRow.columns) FROM outbox o INDEXED BY outbox_pending JOIN outboxMessage m ON m.id = o.id
                WHERE o.state = 'pending' AND m.adventure = ? AND o.attempts > 0 ORDER BY o.id
                """), arguments: [adventure.rawValue]).map { try $0.entry() }
            return PushLogPage(entries: entries, cursor: entries.last?.cursor ?? cursor, waitingForRetry: waiting)
        }
    }

    /// Below this many entries written since the reader's cursor, the log is read
    /// onward from the cursor, every adventure's entries passed over but its own;
    /// above it, through the adventure's pushes. (The log has no index by
    /// adventure: each answer would write a page in its adventure's place, v13.)
    /// A live page reading each second is a second's answers behind.
    static let pushLogOnwardReadLimit: Int64 = 20_000

    /// The adventure's log entries numbered above `after`, with the decision each
    /// sent; a negative `limit` reads them all.
    static func pushLogEntries(of adventure: AdventureID, after: Int64, limit: Int, onwardReadLimit: Int64 = pushLogOnwardReadLimit,
                               _ db: Database) throws -> [PushLogPage.Entry] {
        let last = try Int64.fetchOne(db.cachedStatement(sql: "SELECT max(id) FROM pushLog")) ?? 0
        guard last > after else { return [] }
        let sql = last - after <= onwardReadLimit ? pushLogOnwardSQL : pushLogThroughPushesSQL
        return try Row.fetchAll(db.cachedStatement(sql: sql), arguments: [adventure.rawValue, after, limit]).map { row in
            let log = try PushLogRow(row: row)
            return PushLogPage.Entry(cursor: PushLogCursor(batch: 0, entry: log.id ?? 0),
                                     entry: try log.entry(tick: row["decidedTick"], decision: row["decision"],
                                                          payload: row["sentPayload"]))
        }
    }

    static let pushLogOnwardSQL = """
        SELECT pushLog.*, m.tick AS decidedTick, m.reason AS decision, m.payload AS sentPayload
        FROM pushLog NOT INDEXED CROSS JOIN outboxMessage m ON m.id = pushLog.outbox
        WHERE pushLog.adventure = ?1 AND pushLog.id > ?2 ORDER BY pushLog.id LIMIT ?3
        """

    static let pushLogThroughPushesSQL = """
        WITH RECURSIVE \(adventurePushesCTE)
        SELECT pushLog.*, m.tick AS decidedTick, m.reason AS decision, m.payload AS sentPayload
        FROM pushes CROSS JOIN pushLog INDEXED BY pushLog_byOutbox ON pushLog.outbox = pushes.id
        CROSS JOIN outboxMessage m ON m.id = pushLog.outbox
        WHERE pushLog.id > ?2 ORDER BY pushLog.id LIMIT ?3
        """
}
