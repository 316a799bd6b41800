import Foundation
import Logging
import NIOSSL
import PostgresNIO
import Store

/// The store on a PostgreSQL server that many processes share. Every operation
/// is one transaction; where SQLite's single writer made an invariant hold for
/// free, the operation takes a row lock, relies on a constraint, or claims with
/// `SKIP LOCKED`, and says which where it does. Values are always bound, never
/// spliced into SQL text.
public final class PostgresStore: Sendable {
    public let location: PostgresLocation
    let client: PostgresClient
    let logger: Logger
    private let running: Task<Void, Never>

    private init(location: PostgresLocation, client: PostgresClient, logger: Logger) {
        self.location = location
        self.client = client
        self.logger = logger
        running = Task { await client.run() }
    }

    /// Connects, checks the server, the credentials and the database with one
    /// connection (so each mistake is reported plainly, not retried by the pool in
    /// the background), then brings the schema up to date.
    public static func open(_ location: PostgresLocation,
                            logger: Logger = Logger(label: "rangers.store.postgres")) async throws -> PostgresStore {
        try await probe(location, logger: logger)
        let store = PostgresStore(location: location, client: PostgresClient(configuration: try clientConfiguration(location),
                                                                              backgroundLogger: logger), logger: logger)
        do {
            try await store.migrate()
        } catch {
            await store.close()
            throw PostgresStoreError.migrationFailed(reason(of: error))
        }
        return store
    }

    /// Stops the connection pool; operations after this fail.
    public func close() async {
        running.cancel()
        await running.value
    }

    // MARK: Connecting

    private static func tls(_ location: PostgresLocation) throws -> PostgresConnection.Configuration.TLS {
        switch location.tls {
        case .disable: return .disable
        case .prefer: return .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case .require: return .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
    }

    private static func clientConfiguration(_ location: PostgresLocation) throws -> PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS = switch location.tls {
        case .disable: .disable
        case .prefer: .prefer(.makeClientConfiguration())
        case .require: .require(.makeClientConfiguration())
        }
        var configuration = PostgresClient.Configuration(
            host: location.host, port: location.port, username: location.user, password: location.password,
            database: location.database, tls: tls)
        configuration.options.connectTimeout = .seconds(5)
        configuration.options.maximumConnections = 16
        return configuration
    }

    private static func probe(_ location: PostgresLocation, logger: Logger) async throws(PostgresStoreError) {
        do {
            var configuration = PostgresConnection.Configuration(
                host: location.host, port: location.port, username: location.user, password: location.password,
                database: location.database, tls: try tls(location))
            configuration.options.connectTimeout = .seconds(5) as TimeAmount
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
            try await connection.close()
        } catch let error as PSQLError {
            switch error.serverInfo?[.sqlState] {
            case "28P01", "28000": throw .authenticationFailed(location)
            case "3D000": throw .databaseMissing(location)
            default: throw .cannotConnect(location, reason(of: error))
            }
        } catch {
            throw .cannotConnect(location, reason(of: error))
        }
    }

    /// What went wrong, in words that hold no credentials: the server's message,
    /// or the network's error.
    static func reason(of error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] {
            return message + (error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? "")
        }
        if let underlying = error.underlying { return "\(underlying)" }
        return "\(error.code)"
    }

    // MARK: Schema

    /// An arbitrary constant: the advisory lock every server takes to migrate, so
    /// two servers starting at once on an empty database do not both migrate.
    static let migrationLock: Int64 = 0x7261_6E67_6572_73

    /// Applies the migrations not yet applied, in order, in one transaction holding
    /// the migration lock: a second server starting at the same moment waits for
    /// the first and then finds nothing left to do.
    func migrate() async throws {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.migrationLock))", logger: logger)
            try await connection.query("""
                CREATE TABLE IF NOT EXISTS schema_migration (
                    name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
                """, logger: logger)
            var applied: Set<String> = []
            for try await name in try await connection.query("SELECT name FROM schema_migration", logger: logger)
                .decode(String.self) {
                applied.insert(name)
            }
            for migration in PostgresSchema.migrations where !applied.contains(migration.name) {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("INSERT INTO schema_migration (name) VALUES (\(migration.name))", logger: logger)
                logger.info("applied migration", metadata: ["migration": "\(migration.name)"])
            }
        }
    }

    /// The migrations this database has run, in the order they were applied.
    public func appliedMigrations() async throws -> [String] {
        var names: [String] = []
        for try await name in try await client.query("SELECT name FROM schema_migration ORDER BY applied_at, name",
                                                     logger: logger).decode(String.self) {
            names.append(name)
        }
        return names
    }

    // MARK: Transactions

    /// Runs `body` in one transaction. A constraint the schema enforces comes back
    /// as the `StoreError` the API answers with a 4xx; the transaction was rolled
    /// back whole.
    func transaction<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        do {
            return try await client.withTransaction(logger: logger) { connection in try await body(connection) }
        } catch let error as PostgresTransactionError {
            throw Self.translated(error.closureError ?? error.rollbackError ?? error.beginError ?? error.commitError ?? error)
        } catch {
            throw Self.translated(error)
        }
    }

    static func translated(_ error: any Error) -> any Error {
        guard let error = error as? PSQLError, let state = error.serverInfo?[.sqlState] else { return error }
        let message = error.serverInfo?[.message] ?? "a constraint failed"
        switch state {
        case "23505", "23503": return StoreError.conflict("refused by the schema: \(message)")
        case "23514", "23502": return StoreError.invalid("refused by the schema: \(message)")
        default: return error
        }
    }
}
