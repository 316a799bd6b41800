import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO

/// postgres-nio 1.33 hands a statement to its connection's channel without a
/// promise for the write. When the server ends a connection (a restart, a
/// failover, `pg_terminate_backend`: FATAL 57P01) while it is idle in the pool,
/// the pool may lease it before it has heard of the close, and a statement
/// written to the closed channel is neither sent nor failed: it waits forever,
/// and so would the ticker or the dispatcher behind it.
///
/// So each use of a connection runs in a task of its own, and once that
/// connection has closed, the caller waits `closedConnectionGrace` more and
/// then gets a failure instead (every other statement on a closed connection
/// fails at once). The abandoned task is cancelled and stays suspended; it holds
/// nothing but the lease of a connection the pool has already dropped.
extension PostgresStore {
    static let closedConnectionGrace: TimeAmount = .seconds(2)

    /// `body` on a connection of the pool, given up if that connection closes
    /// under it: every use of a connection goes through here.
    func withWatchedConnection<T: Sendable>(
        operation: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await givingUpOnClosedConnections(operation: operation) { [client] use in
            try await client.withConnection { connection in
                use.watch(connection)
                return try await body(connection)
            }
        }
    }

    private func givingUpOnClosedConnections<T: Sendable>(
        operation: String, _ work: @escaping @Sendable (ConnectionUse) async throws -> T
    ) async throws -> T {
        let outcome = FirstOutcome<T>()
        let use = ConnectionUse(openConnections) {
            outcome.finish(.failure(PostgresFailure(operation: operation, closedConnection: ())))
            outcome.cancel()
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                outcome.wait(continuation)
                outcome.started(Task {
                    defer { use.end() }
                    do {
                        outcome.finish(.success(try await work(use)))
                    } catch {
                        outcome.finish(.failure(error))
                    }
                })
            }
        } onCancel: {
            outcome.cancel()
        }
    }
}

/// The uses of each connection under way, told when their connection closes.
/// One callback per connection on its close, however many uses it serves.
final class OpenConnections: @unchecked Sendable {
    private let lock = NIOLock()
    private var uses: [PostgresConnection.ID: [UInt64: @Sendable () -> Void]] = [:]
    private var nextUse: UInt64 = 0

    /// Registers a use of `connection`; `closed` runs if it closes before `end`.
    fileprivate func begin(_ connection: PostgresConnection, closed: @escaping @Sendable () -> Void) -> (PostgresConnection.ID, UInt64) {
        let (use, firstUse) = lock.withLock { () -> (UInt64, Bool) in
            nextUse += 1
            let firstUse = uses[connection.id] == nil
            uses[connection.id, default: [:]][nextUse] = closed
            return (nextUse, firstUse)
        }
        if firstUse {
            connection.closeFuture.whenComplete { [self, id = connection.id] _ in
                let waiting = lock.withLock { uses.removeValue(forKey: id) } ?? [:]
                for closed in waiting.values { closed() }
            }
        }
        return (connection.id, use)
    }

    fileprivate func end(_ use: (PostgresConnection.ID, UInt64)) {
        lock.withLock {
            _ = uses[use.0]?.removeValue(forKey: use.1)
        }
    }
}

/// One operation's use of a connection: `watch` the connection it was lent.
/// (`fileprivate`: `withWatchedConnection` is the way in.)
final class ConnectionUse: @unchecked Sendable {
    private let connections: OpenConnections
    private let gaveUp: @Sendable () -> Void
    private let lock = NIOLock()
    private var registered: (PostgresConnection.ID, UInt64)?

    fileprivate init(_ connections: OpenConnections, gaveUp: @escaping @Sendable () -> Void) {
        self.connections = connections
        self.gaveUp = gaveUp
    }

    fileprivate func watch(_ connection: PostgresConnection) {
        let eventLoop = connection.eventLoop
        let registered = connections.begin(connection) { [gaveUp] in
            eventLoop.scheduleTask(in: PostgresStore.closedConnectionGrace) { gaveUp() }
        }
        lock.withLock { self.registered = registered }
    }

    fileprivate func end() {
        if let registered = lock.withLock({ self.registered }) { connections.end(registered) }
    }
}

/// The first of a task's result and a give-up, resumed once.
private final class FirstOutcome<T: Sendable>: @unchecked Sendable {
    private let lock = NIOLock()
    private var continuation: CheckedContinuation<T, any Error>?
    private var task: Task<Void, Never>?
    private var cancelled = false

    func wait(_ continuation: CheckedContinuation<T, any Error>) {
        lock.withLock { self.continuation = continuation }
    }

    func started(_ task: Task<Void, Never>) {
        let cancelNow = lock.withLock { () -> Bool in
            self.task = task
            return cancelled
        }
        if cancelNow { task.cancel() }
    }

    func finish(_ result: Result<T, any Error>) {
        let waiting = lock.withLock { () -> CheckedContinuation<T, any Error>? in
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume(with: result)
    }

    func cancel() {
        let running = lock.withLock { () -> Task<Void, Never>? in
            cancelled = true
            return task
        }
        running?.cancel()
    }
}
