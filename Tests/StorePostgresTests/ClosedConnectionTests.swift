import Foundation
import PostgresNIO
import Store
@testable import StorePostgres
import StoreTestSupport
import Testing

/// The server ends a store's connections (a restart, a failover, an operator's
/// `pg_terminate_backend`): an operation fails or goes through, and never waits
/// forever (`PostgresStore+ClosedConnections`).
@Suite(.enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.skipped)), .closesStores)
struct ClosedConnectionTests {
    /// The server ends the store's idle connections, again and again, and a write
    /// follows at once each time: the race in which a connection the pool has not
    /// yet seen close is lent out, or a request waits for one that will never be
    /// free. Each write goes through, at the latest after a failure or two.
    @Test(.timeLimit(.minutes(1))) func aStoreGoesOnWhenTheServerEndsItsConnections() async throws {
        let database = try await StoreEngine.postgres.database()
        let store = try await database.open(asNode: false)
        let name = try #require(URL(string: database.location)?.path.dropFirst())
        var failures = 0
        for round in 0..<150 {
            _ = try await database.rows(sqlite: "", postgres: """
                SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity WHERE datname = '\(name)' AND pid <> pg_backend_pid()
                """)
            var written = false
            for _ in 0..<5 where !written {
                do {
                    _ = try await store.createPlayer(name: "Round \(round)", at: Date())
                    written = true
                } catch {
                    #expect(error is PostgresFailure, "\(error)")
                    #expect(!"\(error)".contains("Generic description"), "the failure says what closed: \(error)")
                    failures += 1
                }
            }
            #expect(written, "round \(round)")
        }
        let players = try await database.rows(sqlite: "", postgres: "SELECT count(*)::text FROM player")
        #expect(players == [["150"]])
        #expect(failures < 150 * 2, "\(failures) failures")
    }

    /// A statement that neither completes nor fails on a connection the server has
    /// closed (as a write to a closed channel does in postgres-nio 1.33) is given
    /// up after the grace period, with a failure that names the operation.
    @Test(.timeLimit(.minutes(1))) func anOperationWhoseConnectionClosesUnderItFailsInsteadOfWaiting() async throws {
        let database = try await StoreEngine.postgres.database()
        let store = try #require(try await database.open(asNode: false) as? PostgresStore)
        let started = ContinuousClock.now
        await #expect {
            try await store.withWatchedConnection(operation: "waitingForever") { connection in
                let pid = try await connection.query("SELECT pg_backend_pid()", logger: store.logger).decodeOne(Int32.self)
                _ = try await database.rows(sqlite: "", postgres: "SELECT pg_terminate_backend(\(pid))::text")
                // What a statement lost on the closed channel does.
                try await Task.sleep(for: .seconds(3_600))
            }
        } throws: { error in
            "\(error)" == "waitingForever failed: the database closed the connection before the statement was sent"
        }
        let waited = ContinuousClock.now - started
        #expect(waited >= .seconds(2) && waited < .seconds(30), "\(waited)")
        // The store goes on with a new connection.
        _ = try await store.createPlayer(name: "After", at: Date())
    }
}
