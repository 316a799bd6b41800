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

    /// The adventure's log entries numbered above `after`, with the decision each
    /// sent; a negative `limit` reads them all.
    static func pushLogEntries(of adventure: AdventureID, after: Int64, limit: Int,
                               _ db: Database) throws -> [PushLogPage.Entry] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT pushLog.*, m.tick AS decidedTick, m.reason AS decision, m.payload AS sentPayload
            FROM pushLog JOIN outboxMessage m ON m.id = pushLog.outbox
            WHERE pushLog.adventure = ? AND pushLog.id > ? ORDER BY pushLog.id LIMIT ?
            """), arguments: [adventure.rawValue, after, limit]).map { row in
            let log = try PushLogRow(row: row)
            return PushLogPage.Entry(cursor: PushLogCursor(batch: 0, entry: log.id ?? 0),
                                     entry: try log.entry(tick: row["decidedTick"], decision: row["decision"],
                                                          payload: row["sentPayload"]))
        }
    }
}
