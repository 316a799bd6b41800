import Foundation
import GRDB
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
