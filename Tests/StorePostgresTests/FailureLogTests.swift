import Foundation
import Store
import StorePostgres
import StoreTestSupport
import Testing

/// What a PostgreSQL failure says when it reaches the log: the store operation,
/// the SQLSTATE and the server's message, so an operator tells a read-only
/// standby from a lost connection or a deadlock; never a parameter's value.
@Suite(.enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.skipped)), .closesStores)
struct FailureLogTests {
    @Test func aFailureNamesTheOperationTheSQLStateAndTheServersMessageButNoValue() async throws {
        let database = try await StoreEngine.postgres.database()
        let store = try await database.open(asNode: false)
        // Every new connection is read-only from now on, as on a standby, and the
        // store's connections are ended so that it makes new ones.
        let name = try #require(URL(string: database.location)?.path.dropFirst())
        _ = try await database.rows(sqlite: "", postgres: "ALTER DATABASE \(name) SET default_transaction_read_only = on")
        _ = try await database.rows(sqlite: "", postgres: """
            SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity WHERE datname = '\(name)' AND pid <> pg_backend_pid()
            """)
        let secretName = "Parameter-Value-7f3a"
        var failures: [any Error] = []
        for _ in 0..<10 {
            do {
                _ = try await store.createPlayer(name: secretName, at: Date())
                Issue.record("a write on a read-only database went through")
                break
            } catch {
                failures.append(error)
                if "\(error)".contains("25006") { break }
            }
        }
        for error in failures {
            let said = "\(error)"
            #expect(error is PostgresFailure, "\(type(of: error))")
            #expect(said.hasPrefix("createPlayer(name:at:) failed: "), "\(said)")
            #expect(!said.contains(secretName), "a parameter's value in the log: \(said)")
            #expect(!said.contains("Generic description"), "\(said)")
        }
        do {
            let error = try #require(failures.last)
            let said = "\(error)"
            #expect(error is PostgresFailure, "\(type(of: error))")
            #expect(said.hasPrefix("createPlayer(name:at:) failed: SQLSTATE 25006: "), "\(said)")
            #expect(said.contains("read-only transaction"), "\(said)")
            #expect(!said.contains(secretName), "a parameter's value in the log: \(said)")
            #expect(!said.contains("Generic description"), "\(said)")
        }
    }
}
