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
    let logger = Logger(label: "tests.raw-read")
    let connection = try await PostgresConnection.connect(
        configuration: .init(host: location.host, port: location.port, username: location.user,
                             password: location.password, database: location.database, tls: .disable),
        id: 2, logger: logger)
    do {
        var query = PostgresQuery(unsafeSQL: sql)
        for argument in arguments { query.binds.append(argument, context: .default) }
        var rows: [[String?]] = []
        for try await row in try await connection.query(query, logger: logger) {
            rows.append(try row.map { cell in try cell.decode(String?.self) })
        }
        try await connection.close()
        return rows
    } catch {
        try? await connection.close()
        throw error
    }
}
