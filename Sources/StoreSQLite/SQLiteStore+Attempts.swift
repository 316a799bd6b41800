import Foundation
import GRDB
import Store

extension SQLiteStore {
    public func countAttempt(_ key: String, window: AttemptWindow, at now: Date) async throws -> Int {
        let start = window.start(of: now)
        return try await write { db in
            try Int.fetchOne(db, sql: """
                INSERT INTO attempt (key, windowStart, count) VALUES (?, ?, 1)
                ON CONFLICT (key) DO UPDATE SET
                    count = CASE WHEN attempt.windowStart = excluded.windowStart THEN attempt.count + 1 ELSE 1 END,
                    windowStart = excluded.windowStart
                RETURNING count
                """, arguments: [key, start]) ?? 1
        }
    }
}
