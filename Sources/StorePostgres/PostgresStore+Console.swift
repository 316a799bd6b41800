import Foundation
import PostgresNIO
import Store

extension PostgresStore {
    public func openConsoleSession(_ session: ConsoleSession, client: String, at now: Date) async throws {
        let entry = NewConsoleAuditEntry(action: .signIn, session: session.reference, client: client, detail: "")
        let second = ConsoleRules.second(now)
        try await transaction { [self] connection in
            try await connection.query("DELETE FROM console_session WHERE expires_at <= \(second)", logger: logger)
            try await connection.query("""
                INSERT INTO console_session (secret_hash, reference, csrf_token, created_at, expires_at)
                VALUES (\(session.secretHash), \(session.reference.rawValue), \(session.csrfToken), \(session.createdAt), \(session.expiresAt))
                """, logger: logger)
            try await insertAudit(entry, at: second, connection)
        }
    }

    public func storedConsoleSession(secretHash: Data) async throws -> ConsoleSession? {
        try await query("""
            SELECT secret_hash, reference, csrf_token, created_at, expires_at FROM console_session WHERE secret_hash = \(secretHash)
            """, logger: logger).decodeFirst((Data, String, String, Int, Int).self).map { row in
            ConsoleSession(secretHash: row.0, reference: ConsoleSessionReference(row.1), csrfToken: row.2, createdAt: row.3, expiresAt: row.4)
        }
    }

    public func closeConsoleSession(secretHash: Data, client: String, at now: Date) async throws -> Bool {
        let second = ConsoleRules.second(now)
        return try await transaction { [self] connection in
            guard let reference = try await connection.query("""
                DELETE FROM console_session WHERE secret_hash = \(secretHash) RETURNING reference
                """, logger: logger).decodeFirst(String.self) else { return false }
            let entry = NewConsoleAuditEntry(action: .signOut, session: ConsoleSessionReference(reference), client: client, detail: "")
            try await insertAudit(entry, at: second, connection)
            return true
        }
    }

    public func recordConsoleAudit(_ entry: NewConsoleAuditEntry, at now: Date) async throws {
        let second = ConsoleRules.second(now)
        try await transaction { [self] connection in try await insertAudit(entry, at: second, connection) }
    }

    public func consoleAudit(before: Int64?, limit: Int) async throws -> [ConsoleAuditEntry] {
        try await query("""
            SELECT id, at, action, session, client, detail FROM console_audit WHERE id < \(before ?? Int64.max)
            ORDER BY id DESC LIMIT \(limit)
            """, logger: logger).decodeAll((Int64, Int, String, String?, String, String).self).compactMap { row in
            // An action a newer version wrote is left out rather than misnamed.
            guard let action = ConsoleAction(rawValue: row.2) else { return nil }
            return ConsoleAuditEntry(id: row.0, at: row.1, action: action, session: row.3.map(ConsoleSessionReference.init),
                                     client: row.4, detail: row.5)
        }
    }

    private func insertAudit(_ entry: NewConsoleAuditEntry, at second: Int, _ connection: PostgresConnection) async throws {
        try await connection.query("""
            INSERT INTO console_audit (at, action, session, client, detail)
            VALUES (\(second), \(entry.action.rawValue), \(entry.session?.rawValue), \(entry.client), \(entry.detail))
            """, logger: logger)
    }
}
