import Foundation
import Store
@testable import StorePostgres
import StoreTestSupport
import Testing
import Vocabulary

/// The console's delivery health counts the last hour's answers. The push log's
/// index by time is one of block ranges (v14): a log much longer than an hour is
/// still read only where the last hour is.
@Suite(.enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.skipped)), .closesStores)
struct PushLogTimeRangeTests {
    @Test func theLastHoursAnswersAreReadFromTheirBlockRangesOnly() async throws {
        let database = try await StoreEngine.postgres.database()
        let store = try await database.open() as! PostgresStore
        let trio = try await Trio.make(in: store)
        let adventure = try await trio.startAdventure()
        let activity = try await trio.registerActivities(for: adventure.id)[0]
        try await store.playNextTick(of: adventure.id) { _ in [update(activity, tick: 1, alert: true)] }
        let push = try #require(try await store.claimOutbox(limit: 1).first)
        try await store.recordDelivered(push, apnsID: "now")
        // A day of answers before it, one every second, appended in time order.
        _ = try await database.rows(sqlite: "", postgres: """
            INSERT INTO push_log (outbox, adventure_code, token, status, attempts, sent_at)
            SELECT outbox, adventure_code, token, status, attempts, sent_at - make_interval(secs => 86400 - g)
            FROM push_log, generate_series(1, 86399) AS g ORDER BY g
            """)
        // What autovacuum does for each range once it is full (the index's `autosummarize`).
        _ = try await database.rows(sqlite: "", postgres: "SELECT brin_summarize_new_values('push_log_by_sent_at')")
        #expect(try await database.rows(sqlite: "", postgres: """
            SELECT array_to_string(reloptions, ',') FROM pg_class WHERE relname = 'push_log_by_sent_at'
            """) == [["autosummarize=on"]])
        _ = try await database.rows(sqlite: "", postgres: "ANALYZE push_log")
        let plan = try await database.rows(sqlite: "", postgres: """
            EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF)
            SELECT status, reason, count(*) FROM push_log WHERE sent_at >= now() - interval '1 hour' GROUP BY status, reason
            """).compactMap(\.first).compactMap { $0 }
        #expect(plan.contains { $0.contains("Bitmap Index Scan on push_log_by_sent_at") }, "\(plan)")
        // The hour's entries, and no more than two ranges of 128 pages beside them, of a day's.
        let removed = plan.compactMap { line in line.split(separator: "Rows Removed by Index Recheck: ").last.flatMap { Int($0) } }
        #expect(removed.count <= 1 && (removed.first ?? 0) < 2 * 128 * 100, "\(plan)")
        let since = Date().addingTimeInterval(-3600)
        let answered = try await store.deliveryHealth(since: since).answers.map(\.count).reduce(0, +)
        // The same count read without the index (an expression it does not cover).
        let counted = try await database.rows(sqlite: "", postgres: """
            SELECT count(*)::text FROM push_log WHERE sent_at + interval '0 s' >= to_timestamp($1::float8)
            """, [String(since.timeIntervalSince1970)])
        #expect(answered > 3_500 && [[String(answered)]] == counted, "\(answered) \(counted)")
    }
}
