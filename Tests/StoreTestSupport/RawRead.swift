import Foundation
import GRDB
import Logging
import PostgresNIO
import StorePostgres

extension TestDatabase {
    /// Reads what no store operation exposes (token history, columns a refused
    /// write must leave alone): the query in each engine's words, values bound as
    /// `?` for SQLite and `$1…` for PostgreSQL, every column read as text.
    public func rows(sqlite: String, postgres: String, _ arguments: [String] = []) async throws -> [[String?]] {
        switch engine {
        case .sqlite:
            var configuration = Configuration()
            configuration.readonly = true
            let queue = try DatabaseQueue(path: location, configuration: configuration)
            return try await queue.read { db in
                try Row.fetchAll(db, sql: sqlite, arguments: StatementArguments(arguments)).map { row in
                    row.databaseValues.map { value -> String? in
                        switch value.storage {
                        case .null: nil
                        case .int64(let number): String(number)
                        case .double(let number): String(number)
                        case .string(let text): text
                        case .blob(let data): data.base64EncodedString()
                        }
                    }
                }
            }
        case .postgres:
            return try await rawRows(in: try PostgresLocation(url: location), postgres, arguments)
        }
    }
}

/// Reads a PostgreSQL database through a connection of its own, not a store (so
/// nothing is migrated first): what is left after a store refused to open it,
/// or what no store operation exposes. Every column is read as text.
public func rawRows(in location: PostgresLocation, _ sql: String, _ arguments: [String] = []) async throws -> [[String?]] {
    try await withRawConnection(to: location) { connection in
        var query = PostgresQuery(unsafeSQL: sql)
        for argument in arguments { query.binds.append(argument, context: .default) }
        var rows: [[String?]] = []
        for try await row in try await connection.query(query, logger: Logger(label: "tests.raw-read")) {
            rows.append(try row.map { cell in try cell.decode(String?.self) })
        }
        return rows
    }
}

/// Runs `body` on a connection of its own to the database, closed after it:
/// for a test that holds a transaction open beside a store.
public func withRawConnection<Value>(to location: PostgresLocation,
                                     _ body: (PostgresConnection) async throws -> Value) async throws -> Value {
    let connection = try await PostgresConnection.connect(
        configuration: .init(host: location.host, port: location.port, username: location.user,
                             password: location.password, database: location.database, tls: .disable),
        id: 2, logger: Logger(label: "tests.raw-connection"))
    do {
        let value = try await body(connection)
        try await connection.close()
        return value
    } catch {
        try? await connection.close()
        throw error
    }
}

/// Runs `sql` on `connection`, its rows read and dropped.
public func run(_ sql: String, on connection: PostgresConnection) async throws {
    _ = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: Logger(label: "tests.raw-connection")).collect()
}

/// Runs `body` while a transaction that holds a transaction id stays open in a
/// database of its own on the same server, then rolls it back: transaction ids
/// are the server's, so what follows the order of commits must pass it over.
/// (A reader of one snapshot, the push log's, is held back once by a transaction
/// of another database that ends while it looks: with the other tests'
/// databases busy, it reads again, `readAgainWhileHeldBack`.)
public func whileATransactionIsOpenInAnotherDatabase(_ body: () async throws -> Void) async throws {
    let elsewhere = try await PostgresTestServer.shared.freshDatabase()
    try await withRawConnection(to: elsewhere) { other in
        try await run("BEGIN", on: other)
        try await run("SELECT pg_current_xact_id()", on: other)
        try await body()
        try await run("ROLLBACK", on: other)
    }
}

/// `read` again, up to `tries` times a tenth of a second apart, until `done`
/// says its answer is the one awaited: the last answer.
public func readAgainWhileHeldBack<Value>(tries: Int = 30, _ read: () async throws -> Value,
                                          until done: (Value) -> Bool) async throws -> Value {
    var value = try await read()
    for _ in 1..<max(1, tries) where !done(value) {
        try await Task.sleep(for: .milliseconds(100))
        value = try await read()
    }
    return value
}
