import PostgresNIO
import Store

extension PostgresStore: StoreActivityReporting {
    /// The cluster's WAL position in bytes, and the statements of this database
    /// counted by `pg_stat_statements` when the server loads it (nil otherwise).
    public func activity() async throws -> StoreActivity {
        let wal = try await query("SELECT (pg_current_wal_lsn() - '0/0')::bigint", logger: logger).decodeOne(Int64.self)
        let installed = try await query(
            "SELECT count(*) FROM pg_extension WHERE extname = 'pg_stat_statements'", logger: logger).decodeOne(Int.self)
        guard installed > 0 else { return StoreActivity(logBytesWritten: wal, statements: nil) }
        let statements = try? await client.query("""
            SELECT COALESCE(sum(calls), 0)::bigint FROM pg_stat_statements
            WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
            """, logger: logger).decodeOne(Int64.self)
        return StoreActivity(logBytesWritten: wal, statements: statements)
    }
}
