import Foundation
import PostgresNIO
import Store

extension PostgresStore {
    /// One statement: the row's lock makes concurrent counts from any node add up.
    public func countAttempt(_ key: String, window: AttemptWindow, at now: Date) async throws -> Int {
        let start = window.start(of: now)
        return try await query("""
            INSERT INTO attempt (key, window_start, count) VALUES (\(key), \(start), 1)
            ON CONFLICT (key) DO UPDATE SET
                count = CASE WHEN attempt.window_start = excluded.window_start THEN attempt.count + 1 ELSE 1 END,
                window_start = excluded.window_start
            RETURNING count
            """, logger: logger).decodeOne(Int.self)
    }
}
