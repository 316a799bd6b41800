import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOSSL
import PostgresNIO
import Store
import Vocabulary

/// The store on a PostgreSQL server that many processes share. Every operation
/// is one transaction; where SQLite's single writer made an invariant hold for
/// free, the operation takes a row lock, relies on a constraint, or claims with
/// `SKIP LOCKED`, and says which where it does. Values are always bound, never
/// spliced into SQL text.
public final class PostgresStore: RangersStore {
    public let location: PostgresLocation
    /// This process among those sharing the database: it marks the pushes this
    /// store claims, and its heartbeat says it is still running.
    public let node: String
    /// How long the node's heartbeat, and its leases on adventures, last without
    /// renewal: a node that stops is taken over after this. The heartbeat is
    /// renewed every third of it; an adventure's lease is never shorter than two
    /// of its tick intervals.
    public let lease: Duration
    let client: PostgresClient
    let logger: Logger
    /// Operations under way on each connection (`withWatchedConnection`).
    let openConnections = OpenConnections()
    private let running: Task<Void, Never>
    private let started: AsyncStream<Void>
    private let beating: LockedTask
    /// When the heartbeat was last renewed, by this process's monotonic clock.
    private let lastBeat = NIOLockedValueBox<ContinuousClock.Instant?>(nil)
    /// When this node last counted its fair share to take leases (`takeLeases`).
    let lastLeaseCount = NIOLockedValueBox<ContinuousClock.Instant?>(nil)
    /// The topics' codes in `push_topic` this node has read (`topicCodes`, `topics`).
    let topicCodeCache = NIOLockedValueBox(TopicCodes())

    public var heartbeatIsCurrent: Bool {
        lastBeat.withLockedValue { $0 }.map { ContinuousClock.now - $0 < lease } ?? false
    }

    private init(location: PostgresLocation, node: String, lease: Duration, client: PostgresClient, logger: Logger) {
        self.location = location
        self.node = node
        self.lease = lease
        self.client = client
        self.logger = logger
        // The pool's run() starts here; the first query waits for it (and would
        // say so in the log if it came first: `open` waits for `started`).
        let (started, signal) = AsyncStream<Void>.makeStream()
        running = Task {
            signal.finish()
            await client.run()
        }
        self.started = started
        beating = LockedTask()
    }

    /// Connects, checks the server, the credentials and the database with one
    /// connection (so each mistake is reported plainly, not retried by the pool in
    /// the background), then brings the schema up to date. A node (`asNode`, what
    /// `rangers serve` opens) registers with a heartbeat and counts in the fair
    /// shares of adventures; a reader (`rangers replay`, tools) does neither and
    /// must not claim pushes.
    public static func open(_ location: PostgresLocation, node: String = UUID().uuidString.lowercased(),
                            lease: Duration = PostgresStore.defaultLease, asNode: Bool = true,
                            logger: Logger = Logger(label: "rangers.store.postgres")) async throws -> PostgresStore {
        try await probe(location, logger: logger)
        let lease = max(lease, .seconds(1))
        let store = PostgresStore(location: location, node: node, lease: lease,
                                  client: PostgresClient(configuration: try clientConfiguration(location, lease: lease),
                                                         backgroundLogger: logger),
                                  logger: logger)
        for await _ in store.started {}
        do {
            try await store.migrate()
        } catch {
            await store.close()
            throw PostgresStoreError.migrationFailed(reason(of: error))
        }
        guard asNode else { return store }
        do {
            try await store.beat()
        } catch {
            await store.close()
            throw PostgresStoreError.cannotConnect(location, reason(of: error))
        }
        store.beating.start { [store] in await store.keepBeating() }
        return store
    }

    public static let defaultLease: Duration = .seconds(5)

    /// The lease as PostgreSQL's `make_interval(secs => …)` takes it.
    var leaseSeconds: Double {
        Double(lease.components.seconds) + Double(lease.components.attoseconds) / 1e18
    }

    /// Says the node stopped and gives up its leases (its claims and adventures
    /// are free for other nodes at once), then stops the connection pool;
    /// operations after this fail.
    public func close() async {
        await beating.stop()
        do {
            try await releaseLeases()
            try await query("""
                UPDATE node SET alive_until = now(), stopped_at = now() WHERE id = \(node)
                """, logger: logger)
        } catch {
            logger.debug("could not mark the node stopped", metadata: ["error": "\(Self.reason(of: error))"])
        }
        running.cancel()
        await running.value
    }

    // MARK: Heartbeat

    /// Registers or renews this node's heartbeat, in the database's clock: every
    /// node compares against the same one. A renewal is an update: an insert that
    /// met its row would still draw a number for the node's code (v25) each beat.
    func beat() async throws {
        let started = ContinuousClock.now
        try await query("""
            WITH renewed AS (
                UPDATE node SET alive_until = now() + make_interval(secs => \(leaseSeconds)), stopped_at = NULL
                WHERE id = \(node) RETURNING id
            )
            INSERT INTO node (id, started_at, alive_until)
            SELECT \(node), now(), now() + make_interval(secs => \(leaseSeconds)) WHERE NOT EXISTS (SELECT 1 FROM renewed)
            ON CONFLICT (id) DO UPDATE SET alive_until = excluded.alive_until, stopped_at = NULL
            """, logger: logger)
        lastBeat.withLockedValue { $0 = started }
    }

    /// Stops renewing the heartbeat without saying the node stopped, as a process
    /// that hangs or is killed does: for the tests of what other nodes then do.
    func stopBeating() async {
        await beating.stop()
    }

    /// Said once when renewing starts failing (and again for another reason), and once when it works again.
    private func keepBeating() async {
        var failing: String?
        while !Task.isCancelled {
            try? await Task.sleep(for: lease / 3)
            guard !Task.isCancelled else { return }
            do {
                try await beat()
                if failing != nil { logger.notice("the node's heartbeat is renewed again") }
                failing = nil
            } catch {
                let reason = Self.reason(of: error)
                if failing != reason {
                    logger.warning("cannot renew the node's heartbeat; trying again, and saying so once it works",
                                   metadata: ["error": "\(reason)"])
                }
                failing = reason
            }
        }
    }

    // MARK: Connecting

    private static func tls(_ location: PostgresLocation) throws -> PostgresConnection.Configuration.TLS {
        switch location.tls {
        case .disable: return .disable
        case .prefer: return .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case .require: return .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
    }

    /// A node that stalls (paused, swapped out) in the middle of a transaction
    /// would hold its rows' locks and stop every other node that needs them: the
    /// server ends such a transaction once it has been idle for a lease, by when
    /// the node's adventures are another's anyway.
    private static func clientConfiguration(_ location: PostgresLocation, lease: Duration) throws -> PostgresClient.Configuration {
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
        // When the server ends an idle connection, postgres-nio 1.33 may go on
        // counting it as one about to be free, and a request made then waits for
        // it instead of opening another. The pool opens a connection again only to
        // keep its minimum: with one kept, such a request is served by it.
        configuration.options.minimumConnections = 1
        configuration.options.additionalStartupParameters = [
            ("idle_in_transaction_session_timeout", "\(lease.components.seconds * 1000)"),
        ]
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
        if let failure = error as? PostgresFailure { return failure.description }
        if let error = error as? PostgresTransactionError {
            guard let inner = error.closureError ?? error.rollbackError ?? error.beginError ?? error.commitError else {
                return "a transaction failed"
            }
            return reason(of: inner)
        }
        // PSQLError's own description hides everything, its reflection shows the statement's values: neither.
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
        try await transaction { [self] connection in
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

    /// The migrations this database has run, in the order they were applied:
    /// those applied in one transaction share its time, and are in the order of
    /// the list (by name, "v10" would come before "v2").
    public func appliedMigrations() async throws -> [String] {
        var applied: [(name: String, at: Date)] = []
        for (name, at) in try await query("SELECT name, applied_at FROM schema_migration", logger: logger)
            .decodeAll((String, Date).self) {
            applied.append((name, at))
        }
        let order = Dictionary(uniqueKeysWithValues: PostgresSchema.migrations.enumerated().map { ($1.name, $0) })
        return applied.sorted {
            ($0.at, order[$0.name] ?? Int.max, $0.name) < ($1.at, order[$1.name] ?? Int.max, $1.name)
        }.map(\.name)
    }

    // MARK: Transactions

    /// Runs `body` in one transaction. A constraint the schema enforces comes back
    /// as the `StoreError` the API answers with a 4xx; the transaction was rolled
    /// back whole.
    /// A connection the server closes under it fails it (`withWatchedConnection`).
    func transaction<T: Sendable>(operation: String = #function,
                                  _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        do {
            return try await withWatchedConnection(operation: operation) { [logger] connection in
                try await connection.withTransaction(logger: logger) { connection in try await body(connection) }
            }
        } catch let error as PostgresTransactionError {
            throw Self.translated(error.closureError ?? error.rollbackError ?? error.beginError ?? error.commitError ?? error,
                                  operation: operation)
        } catch {
            throw Self.translated(error, operation: operation)
        }
    }

    /// One statement outside a transaction, its rows read whole, its failure
    /// translated as a transaction's.
    @discardableResult
    func query(_ query: PostgresQuery, logger: Logger, operation: String = #function) async throws -> [PostgresRow] {
        do {
            return try await withWatchedConnection(operation: operation) { connection in
                try await connection.query(query, logger: logger).collect()
            }
        } catch {
            throw Self.translated(error, operation: operation)
        }
    }

    /// A constraint the schema enforces is the refusal it stands for; any other
    /// PostgreSQL error becomes a `PostgresFailure` naming the operation.
    static func translated(_ error: any Error, operation: String) -> any Error {
        guard let error = error as? PSQLError else { return error }
        let message = error.serverInfo?[.message]
        switch error.serverInfo?[.sqlState] {
        case "23505", "23503": return StoreError.refusedBySchema(message, malformed: false)
        case "23514", "23502": return StoreError.refusedBySchema(message, malformed: true)
        default: return PostgresFailure(operation: operation, error)
        }
    }
}

/// A background task that can be started once and stopped from anywhere.
final class LockedTask: @unchecked Sendable {
    private let lock = NIOLock()
    private var task: Task<Void, Never>?

    func start(_ body: @escaping @Sendable () async -> Void) {
        lock.withLock { task = Task { await body() } }
    }

    func stop() async {
        let running = lock.withLock { () -> Task<Void, Never>? in defer { task = nil }; return task }
        running?.cancel()
        await running?.value
    }
}

/// A PostgreSQL error as the log should show it: the store operation that failed,
/// the SQLSTATE and the server's message (a deadlock, a lost connection, a
/// read-only standby are told apart), never a statement's parameters. The
/// server's message is left out for data exceptions (SQLSTATE class 22), whose
/// messages quote the value at fault.
public struct PostgresFailure: Error, CustomStringConvertible {
    public let operation: String
    public let sqlState: String?
    public let message: String

    init(operation: String, _ error: PSQLError) {
        self.operation = operation
        // A statement cut off by the server's closing its connection fails with
        // "connection closed", the server's error (57P01 …) beneath it.
        var cause = error
        while cause.serverInfo == nil, let beneath = cause.underlying as? PSQLError { cause = beneath }
        sqlState = cause.serverInfo?[.sqlState]
        if let sqlState, sqlState.hasPrefix("22") {
            message = "a value was refused (data exception)"
        } else if let text = cause.serverInfo?[.message] {
            message = text
        } else if let underlying = cause.underlying {
            message = "\(underlying)"
        } else {
            message = "\(cause.code)"
        }
    }

    /// A statement that could not be sent: its connection had closed.
    init(operation: String, closedConnection: Void) {
        self.operation = operation
        sqlState = nil
        message = "the database closed the connection before the statement was sent"
    }

    public var description: String {
        "\(operation) failed: " + (sqlState.map { "SQLSTATE \($0): " } ?? "") + message
    }
}
