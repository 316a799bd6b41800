import Foundation
import GRDB
import Store

extension SQLiteStore {
    public func openConsoleSession(_ session: ConsoleSession, client: String, at now: Date) async throws {
        let entry = NewConsoleAuditEntry(action: .signIn, session: session.reference, client: client, detail: "")
        let second = ConsoleRules.second(now)
        try await write { db in
            try db.execute(sql: "DELETE FROM consoleSession WHERE expiresAt <= ?", arguments: [second])
            try db.execute(sql: """
                INSERT INTO consoleSession (secretHash, reference, csrfToken, createdAt, expiresAt) VALUES (?, ?, ?, ?, ?)
                """, arguments: [session.secretHash, session.reference.rawValue, session.csrfToken, session.createdAt, session.expiresAt])
            try Self.insertAudit(entry, at: second, db)
        }
    }

    public func storedConsoleSession(secretHash: Data) async throws -> ConsoleSession? {
        try await read { db in
            try Row.fetchOne(db, sql: """
                SELECT secretHash, reference, csrfToken, createdAt, expiresAt FROM consoleSession WHERE secretHash = ?
                """, arguments: [secretHash]).map { row in
                ConsoleSession(secretHash: row[0], reference: ConsoleSessionReference(row[1] as String), csrfToken: row[2],
                               createdAt: row[3], expiresAt: row[4])
            }
        }
    }

    public func closeConsoleSession(secretHash: Data, client: String, at now: Date) async throws -> Bool {
        let second = ConsoleRules.second(now)
        return try await write { db in
            guard let reference = try String.fetchOne(db, sql: "DELETE FROM consoleSession WHERE secretHash = ? RETURNING reference",
                                                      arguments: [secretHash]) else { return false }
            let entry = NewConsoleAuditEntry(action: .signOut, session: ConsoleSessionReference(reference), client: client, detail: "")
            try Self.insertAudit(entry, at: second, db)
            return true
        }
    }

    public func recordConsoleAudit(_ entry: NewConsoleAuditEntry, at now: Date) async throws {
        let second = ConsoleRules.second(now)
        try await write { db in try Self.insertAudit(entry, at: second, db) }
    }

    public func consoleAudit(before: Int64?, limit: Int) async throws -> [ConsoleAuditEntry] {
        try await read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, at, action, session, client, detail FROM consoleAudit WHERE id < ? ORDER BY id DESC LIMIT ?
                """, arguments: [before ?? Int64.max, limit]).compactMap { row in
                // An action a newer version wrote is left out rather than misnamed.
                guard let action = ConsoleAction(rawValue: row[2]) else { return nil }
                return ConsoleAuditEntry(id: row[0], at: row[1], action: action, session: (row[3] as String?).map(ConsoleSessionReference.init),
                                         client: row[4], detail: row[5])
            }
        }
    }

    private static func insertAudit(_ entry: NewConsoleAuditEntry, at second: Int, _ db: Database) throws {
        try db.execute(sql: "INSERT INTO consoleAudit (at, action, session, client, detail) VALUES (?, ?, ?, ?, ?)",
                       arguments: [second, entry.action.rawValue, entry.session?.rawValue, entry.client, entry.detail])
    }
}
