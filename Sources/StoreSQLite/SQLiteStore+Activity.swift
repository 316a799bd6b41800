import GRDB
import GRDBSQLite
import Store

extension SQLiteStore: StoreActivityReporting {
    /// The writer's WAL frames written (`SQLITE_DBSTATUS_CACHE_WRITE`: in WAL mode,
    /// the pages appended to the WAL, each with a 24-byte frame header) and its
    /// statements. Read on the writer, in turn with its writes.
    public func activity() async throws -> StoreActivity {
        try await write { db in
            var pages: Int32 = 0, highest: Int32 = 0
            sqlite3_db_status(db.sqliteConnection, SQLITE_DBSTATUS_CACHE_WRITE, &pages, &highest, 0)
            let pageSize = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
            return StoreActivity(logBytesWritten: Int64(pages) * (pageSize + 24), statements: self.writerStatements.value)
        }
    }
}

/// Counts the statements a connection runs, through SQLite's trace hook (one C
/// call per statement, whose cost is lost beside the statement's own). Read and
/// written on that connection's queue only.
final class StatementCounter: @unchecked Sendable {
    private(set) var value: Int64 = 0

    func count(on db: Database) {
        sqlite3_trace_v2(db.sqliteConnection, UInt32(SQLITE_TRACE_STMT), { _, context, _, _ in
            guard let context else { return 0 }
            Unmanaged<StatementCounter>.fromOpaque(context).takeUnretainedValue().value += 1
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
    }
}
