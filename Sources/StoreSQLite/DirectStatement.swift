import Foundation
import GRDB
import GRDBSQLite

// The statements a tick and an answer run thousands of times a second, bound,
// stepped and read through SQLite's C interface under GRDB's cached statements.
// GRDB's `execute(arguments:)` builds a `StatementArguments` for each run (each
// value boxed, then turned into a `DatabaseValue`) and wraps each step in its
// observation, cancellation and region bookkeeping, which this store uses none
// of: some 150 k instructions an adventure-tick (docs/benchmarks.md). Only for
// statements run inside the store's own reads and writes, never handed to GRDB's
// fetching methods (their bindings are not GRDB's), and never `BEGIN`, `COMMIT`
// or `ROLLBACK`, whose effect GRDB must see; savepoints within a transaction GRDB
// does not track unless observers watch, and none do.

/// The values of one run of a statement, bound in the order of its parameters.
struct StatementValues {
    fileprivate let handle: SQLiteStatement
    fileprivate var count: Int32 = 0
    fileprivate var failure: Int32 = SQLITE_OK

    fileprivate init(_ handle: SQLiteStatement) { self.handle = handle }

    /// The next parameter's index, from 1.
    private mutating func next() -> Int32 {
        count += 1
        return count
    }

    private mutating func check(_ code: Int32) {
        if code != SQLITE_OK, failure == SQLITE_OK { failure = code }
    }

    mutating func add(_ value: String) {
        let (handle, index) = (handle, next())
        var value = value
        // SQLITE_TRANSIENT: SQLite copies the bytes before this returns.
        check(value.withUTF8 { bytes in
            sqlite3_bind_text(handle, index, bytes.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                              Int32(bytes.count), transient)
        })
    }

    mutating func add(_ value: String?) {
        if let value { add(value) } else { addNull() }
    }

    mutating func add(_ value: Int64) {
        let (handle, index) = (handle, next())
        check(sqlite3_bind_int64(handle, index, value))
    }

    mutating func add(_ value: Int) { add(Int64(value)) }
    mutating func add(_ value: Bool) { add(Int64(value ? 1 : 0)) }

    mutating func add(_ value: Int64?) {
        if let value { add(value) } else { addNull() }
    }

    mutating func add(_ value: Int?) { add(value.map(Int64.init)) }

    mutating func add(_ value: Double) {
        let (handle, index) = (handle, next())
        check(sqlite3_bind_double(handle, index, value))
    }

    mutating func add(_ value: Data) {
        let (handle, index) = (handle, next())
        check(value.withUnsafeBytes { bytes in sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), transient) })
    }

    /// A value already in the form GRDB stores it (a date's text, `Date.databaseValue`).
    mutating func add(_ value: DatabaseValue) {
        switch value.storage {
        case .null: addNull()
        case .int64(let number): add(number)
        case .double(let number): add(number)
        case .string(let text): add(text)
        case .blob(let data): add(data)
        }
    }

    mutating func addNull() {
        let (handle, index) = (handle, next())
        check(sqlite3_bind_null(handle, index))
    }
}

/// The row a statement stands on, read by column (from 0).
struct StatementRow {
    fileprivate let handle: SQLiteStatement

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    func int(_ column: Int32) -> Int { Int(int64(column)) }
    func bool(_ column: Int32) -> Bool { int64(column) != 0 }
    func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }
    func optionalInt(_ column: Int32) -> Int? { isNull(column) ? nil : int(column) }

    func optionalString(_ column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// A column the schema holds `NOT NULL`.
    func string(_ column: Int32) -> String { optionalString(column) ?? "" }

    func data(_ column: Int32) -> Data {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return Data() }
        return Data(bytes: bytes, count: count)
    }

    /// A date as GRDB stores it (its text, `Date.databaseValue`).
    func date(_ column: Int32) -> Date? { Date(sqliteStatement: handle, index: column) }
}

extension Statement {
    /// Runs the statement, which returns no rows, with the values `bind` adds.
    func run(_ bind: (inout StatementValues) -> Void) throws {
        try forEachRow(bind) { _ in }
    }

    /// Runs the statement with the values `bind` adds, calling `row` on each row.
    func forEachRow(_ bind: (inout StatementValues) -> Void, _ row: (StatementRow) throws -> Void) throws {
        let handle = sqliteStatement
        // Whatever happens, the statement is left reset, ready for its next run.
        defer { sqlite3_reset(handle) }
        var values = StatementValues(handle)
        bind(&values)
        guard values.count == sqlite3_bind_parameter_count(handle) else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE,
                                message: "\(values.count) values for \(sqlite3_bind_parameter_count(handle)) parameters", sql: sql)
        }
        guard values.failure == SQLITE_OK else { throw failure(values.failure) }
        while true {
            switch sqlite3_step(handle) {
            case SQLITE_DONE: return
            case SQLITE_ROW: try row(StatementRow(handle: handle))
            case let code: throw failure(code)
            }
        }
    }

    /// The connection's own account of what failed, as GRDB words it. GRDB
    /// interrupts a statement only when its task is cancelled, and says so.
    private func failure(_ code: Int32) -> any Error {
        if code == SQLITE_INTERRUPT { return CancellationError() }
        let connection = sqlite3_db_handle(sqliteStatement)
        let extended = connection.map { sqlite3_extended_errcode($0) } ?? code
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        return DatabaseError(resultCode: ResultCode(rawValue: extended), message: message, sql: sql)
    }
}

/// `SQLITE_TRANSIENT`, which Swift does not import: SQLite copies what is bound.
private let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
