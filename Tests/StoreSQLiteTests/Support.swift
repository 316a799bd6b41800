import Foundation
import GRDB
import Vocabulary
@testable import StoreSQLite
import StoreTestSupport

/// A real SQLite file in a directory of its own.
struct ScratchDatabase {
    let directory: URL
    var path: String { directory.appendingPathComponent("rangers.sqlite").path }

    init() throws {
        directory = try ScratchFiles.newDirectory()
    }

    func open() throws -> SQLiteStore { try SQLiteStore(path: path) }

    /// The file as a version that had run only the migrations up to `lastMigration` would leave it.
    func open(upTo lastMigration: String) throws -> SQLiteStore {
        try SQLiteStore(path: path, migratingUpTo: lastMigration)
    }
}

extension SQLiteStore {
    /// A raw read for what no operation exposes (hashes, history rows, query plans).
    func rawRead<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await pool.read(body)
    }

    /// A raw write, for rows and values no operation would write.
    func rawWrite<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await pool.write(body)
    }
}

extension Trio {
    /// The members' activities as a version before v14 registered them, a budget
    /// in each activity's row, for a file stopped at an older migration (the
    /// store's own registration writes today's rows). Named as `registerActivities` names them.
    func registerActivitiesBeforeV14(for adventure: AdventureID, in store: SQLiteStore) async throws -> [ActivityID] {
        let ids = roster.indices.map { ActivityID("activity-\($0)-\(adventure.rawValue.prefix(8))") }
        try await store.rawWrite { [roster] db in
            for (index, member) in roster.enumerated() {
                try db.execute(sql: """
                    INSERT INTO liveActivity (id, player, adventure, heroID, frequentUpdates, locale, status, ledger, createdAt)
                    VALUES (?, ?, ?, ?, ?, 'en', 'active', '{"highPrioritySent":[]}', ?)
                    """, arguments: [ids[index].rawValue, member.player.rawValue, adventure.rawValue, member.hero.rawValue,
                                     index == 0, Date()])
                try db.execute(sql: "INSERT INTO activityToken (activity, token, registeredAt) VALUES (?, ?, ?)",
                               arguments: [ids[index].rawValue, Tokens.make(index).hex, Date()])
            }
        }
        return ids
    }
}

/// Pushes to one activity as v12 to v14 stored them, its progress and its
/// message under one id, the payloads `{"push":0}`, `{"push":1}` … in order; the
/// first has an entry in the push log. A push being sent was claimed by "old".
func insertPushesAsBeforeV15(_ pushes: [(state: String, tick: Int, supersedable: Bool)], adventure: AdventureID,
                             activity: ActivityID, _ db: Database) throws {
    for (index, push) in pushes.enumerated() {
        try db.execute(sql: """
            INSERT INTO outbox (targetKind, targetID, supersedable, state, attempts, nextAttemptAt, claimedBy)
            VALUES ('liveActivity', ?, ?, ?, ?, '2025-01-01 00:00:00.000', ?)
            """, arguments: [activity.rawValue, push.supersedable, push.state, push.state == "pending" ? 0 : 1,
                             push.state == "sending" ? "old" : nil])
        try db.execute(sql: """
            INSERT INTO outboxMessage (id, adventure, targetKind, targetID, pushType, topic, priority, expiration, payload,
                                       reason, hasAlert, isEnd, tick, createdAt)
            VALUES (last_insert_rowid(), ?, 'liveActivity', ?, 'liveactivity', 'app.topic', 5, 4000000000, ?, 'routine',
                    0, 0, ?, '2025-01-01 00:00:00.000')
            """, arguments: [adventure.rawValue, activity.rawValue, Data("{\"push\":\(index)}".utf8), push.tick])
    }
    try db.execute(sql: """
        INSERT INTO pushLog (outbox, adventure, targetKind, targetID, token, pushType, priority, status, reason, apnsID,
                             attempts, sentAt)
        VALUES ((SELECT MIN(id) FROM outbox), ?, 'liveActivity', ?, ?, 'liveactivity', 5, 200, NULL, 'apns-1', 1,
                '2025-01-01 00:00:05.000')
        """, arguments: [adventure.rawValue, activity.rawValue, Tokens.make(0).hex])
}
