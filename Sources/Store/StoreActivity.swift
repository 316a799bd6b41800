/// What a store has done since it opened, for `/metrics` and the benchmarks:
/// figures to take differences of, not to interpret alone.
public struct StoreActivity: Hashable, Sendable {
    /// Bytes appended to the engine's write-ahead log: SQLite's WAL frames
    /// (pages and their headers) written by this store; PostgreSQL's WAL
    /// position, which counts every writer of the database cluster.
    public var logBytesWritten: Int64
    /// Statements the engine ran for this store (SQLite: its writer connection;
    /// PostgreSQL: every client of the database, from `pg_stat_statements`),
    /// nil when the engine cannot count them.
    public var statements: Int64?

    public init(logBytesWritten: Int64, statements: Int64?) {
        self.logBytesWritten = logBytesWritten
        self.statements = statements
    }
}

/// A store that can say what it has written. Not part of `RangersStore`: only
/// measurements ask.
public protocol StoreActivityReporting: Sendable {
    func activity() async throws -> StoreActivity
}
