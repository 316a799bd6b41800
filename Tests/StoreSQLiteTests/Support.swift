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
