import Foundation
import GRDB
import Store

/// The server's one database object: a `DatabasePool` (WAL, so readers never wait
/// for the writer and always see a committed snapshot) over one SQLite file.
///
/// Every operation is one transaction: an invariant that spans rows (a party of
/// at most six, one running adventure per party, one valid token per activity, a
/// tick stored once) is checked and written inside the same write, and SQLite runs
/// one write at a time, so no check can be overtaken between reading and writing.
public final class SQLiteStore: RangersStore {
    /// One process owns the file: there is no heartbeat to keep.
    public var heartbeatIsCurrent: Bool { true }

    public static let defaultPath = "./rangers.sqlite"
    /// The page size of a new file, in bytes.
    static let pageSize = 2048

    let pool: DatabasePool
    public let path: String
    /// Marks the pushes this store claims: no other store's dispatcher records
    /// their answers, and a later store on the file sends them again.
    let claimant = UUID().uuidString.lowercased()
    /// Statements the writer connection ran (`activity()`).
    let writerStatements = StatementCounter()
    /// Checkpoints the WAL beside the writer rather than on it.
    let checkpointer: WALCheckpointer

    /// Opens (or creates) the file and brings its schema up to date.
    public convenience init(path: String = SQLiteStore.defaultPath) throws {
        try self.init(path: path, migratingUpTo: nil)
    }

    /// Opens the file with the migrations up to `lastMigration` (all when nil):
    /// tests make files as older versions left them, or checkpoint sooner.
    init(path: String, migratingUpTo lastMigration: String?, checkpointAfterFrames: Int32 = 10_000) throws {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        // Writes from this process are queued by the pool; another process on the
        // same file (a `rangers replay --db` beside the server) may still hold the
        // lock for a moment: wait for it rather than fail.
        configuration.busyMode = .timeout(5)
        configuration.label = "SQLiteStore"
        let statements = writerStatements
        // Under load the ticker rewrites the same pages (each adventure's latest
        // events, its row, its activities' budgets) every second. Checkpointing
        // every 4 MiB of WAL (SQLite's default) wrote those pages to the file
        // several times a second; a longer WAL writes each page once per
        // checkpoint, and the checkpointer does it beside the writer, not on it.
        let checkpointer = WALCheckpointer(path: path, thresholdFrames: checkpointAfterFrames)
        configuration.prepareDatabase { db in
            guard !db.configuration.readonly else { return }
            statements.count(on: db)
            checkpointer.watch(db)
            // The WAL file is cut back when it starts over, and a larger cache
            // keeps the hot pages at hand. Each tick of a batch has its own
            // savepoint; the pages a savepoint would roll back to are kept in
            // memory, not written to a temporary file (14,000 writes a second of
            // it at 2,000 adventures).
            //
            // A new file gets 2,048-byte pages (an existing one keeps its own):
            // a tick writes its rows and index entries each in a place of its
            // adventure's, about eight pages a tick whatever the rows' size, so
            // the WAL's bytes go with the page size (docs/benchmarks.md).
            try db.execute(sql: """
                PRAGMA page_size = \(Self.pageSize);
                PRAGMA journal_size_limit = 67108864;
                PRAGMA cache_size = -65536;
                PRAGMA temp_store = MEMORY;
                """)
        }
        self.checkpointer = checkpointer
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch {
            checkpointer.stop()
            throw error
        }
        self.path = path
        if let lastMigration {
            try Schema.migrator.migrate(pool, upTo: lastMigration)
        } else {
            try Schema.migrator.migrate(pool)
        }
    }

    deinit { checkpointer.stop() }

    /// The migrations this file has run, in order; for `/healthz` and the tests.
    public func appliedMigrations() async throws -> [String] {
        try await pool.read { db in try Schema.migrator.appliedMigrations(db) }
    }

    func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await pool.write(updates)
        } catch {
            throw Self.translated(error)
        }
    }

    func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await pool.read(value)
        } catch {
            throw Self.translated(error)
        }
    }

    /// Runs one step of a batch: nil when it went through, the refusal when the
    /// store refused it. Anything else (the disk, the connection) fails the batch.
    static func refusal(_ step: () throws -> Void) throws -> StoreError? {
        do {
            try step()
            return nil
        } catch {
            if let refusal = translated(error) as? StoreError { return refusal }
            throw error
        }
    }

    /// A constraint the schema enforces is a refusal, not a failure of the server:
    /// it comes back as a `StoreError` the API can answer with a 4xx. The write was
    /// rolled back whole, so nothing stored changed.
    private static func translated(_ error: any Error) -> any Error {
        switch error {
        case let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT:
            switch error.extendedResultCode {
            case .SQLITE_CONSTRAINT_CHECK, .SQLITE_CONSTRAINT_NOTNULL:
                return StoreError.refusedBySchema(error.message, malformed: true)
            default:
                return StoreError.refusedBySchema(error.message, malformed: false)
            }
        case is DecodingError:
            return StoreError.corrupt(String(describing: error))
        case let error as DatabaseError:
            // What the file and its disk say now, not what the request asked: worth asking again later.
            switch error.resultCode {
            case .SQLITE_FULL: return StoreError.unavailable("the database's disk is full; nothing was written")
            case .SQLITE_IOERR: return StoreError.unavailable("the database's disk failed to read or write; nothing was written")
            case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM:
                return StoreError.unavailable("the database file cannot be written; nothing was written")
            case .SQLITE_BUSY, .SQLITE_LOCKED: return StoreError.unavailable("the database is busy; nothing was written")
            default: return error
            }
        default:
            return error
        }
    }
}

extension Database {
    /// True when the statement just run changed at least one row.
    var changedRows: Bool { changesCount > 0 }
}

/// A savepoint for each item of a batch (a tick, an answer): all of an item
/// stays, or none of it when it throws (and the error goes on). GRDB's
/// `inSavepoint` prepares its statements anew each time; these are looked up in
/// GRDB's cache once a batch and run directly (`DirectStatement.swift`).
struct ItemSavepoint {
    private let begin: Statement, rollback: Statement, release: Statement

    init(_ db: Database) throws {
        begin = try db.cachedStatement(sql: "SAVEPOINT item")
        rollback = try db.cachedStatement(sql: "ROLLBACK TO SAVEPOINT item")
        release = try db.cachedStatement(sql: "RELEASE SAVEPOINT item")
    }

    func run(_ body: () throws -> Void) throws {
        try begin.run { _ in }
        do {
            try body()
        } catch {
            try rollback.run { _ in }
            try release.run { _ in }
            throw error
        }
        try release.run { _ in }
    }
}
