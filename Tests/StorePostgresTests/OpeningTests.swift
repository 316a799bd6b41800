import Foundation
import StorePostgres
import StoreTestSupport
import Testing

@Suite struct PostgresLocationTests {
    @Test func aURLNamesHostPortUserDatabaseAndTLS() throws {
        let location = try PostgresLocation(url: "postgres://rangers:s%40cret@db.example:6543/game?sslmode=require")
        #expect(location.host == "db.example" && location.port == 6543)
        #expect(location.user == "rangers" && location.password == "s@cret" && location.database == "game")
        #expect(location.tls == .require)
        #expect(location.description == "postgres://rangers@db.example:6543/game")
        #expect(try PostgresLocation(url: "postgresql://u@h/d").port == 5432)
    }

    @Test(arguments: [
        ("not a url at all", "not a URL"),
        ("mysql://u:p@h/d", "scheme"),
        ("postgres://u:p@/d", "host"),
        ("postgres://h:5432/d", "user"),
        ("postgres://u:p@h:5432", "database"),
        ("postgres://u:p@h:5432/d/e", "database"),
        ("postgres://u:p@h:5432/d?sslmode=maybe", "sslmode"),
        ("postgres://u:p@h:5432/d?pool=3", "unknown option"),
    ])
    func aBadURLIsRefusedSayingWhatIsWrongAndNeverThePassword(url: String, says: String) {
        do {
            _ = try PostgresLocation(url: url)
            Issue.record("\(url) was accepted")
        } catch {
            #expect("\(error)".contains(says), "\(error)")
            #expect(!"\(error)".contains(":p@"))
        }
    }
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.skipped)))
struct PostgresOpeningTests {
    @Test func aServerThatDoesNotAnswerIsNamed() async throws {
        let port = try PostgresTestServer.freePort()
        let location = try PostgresLocation(url: "postgres://postgres:hunter2@127.0.0.1:\(port)/nothing?sslmode=disable")
        await #expect {
            try await PostgresStore.open(location)
        } throws: { error in
            guard case .cannotConnect = error as? PostgresStoreError else { return false }
            return "\(error)".contains("127.0.0.1:\(port)") && !"\(error)".contains("hunter2")
        }
    }

    @Test func aWrongPasswordAndAMissingDatabaseAreNamed() async throws {
        var location = try await PostgresTestServer.shared.freshDatabase()
        location.password = "not-the-password"
        await #expect {
            try await PostgresStore.open(location)
        } throws: { error in
            error as? PostgresStoreError == .authenticationFailed(location) && !"\(error)".contains("not-the-password")
        }
        location = try await PostgresTestServer.shared.freshDatabase()
        location.database = "no_such_database"
        await #expect {
            try await PostgresStore.open(location)
        } throws: { error in
            error as? PostgresStoreError == .databaseMissing(location)
                && "\(error)".contains("no_such_database") && !"\(error)".contains(PostgresTestServer.password)
        }
    }

    private static let everyMigration = [
        "v1", "v2-node", "v3-leases", "v4-tick-phase", "v5-followers", "v6-push-log-order", "v7-attempts", "v8-tick-events",
        "v9-one-push-log-index", "v10-console", "v11-outbox-message", "v12-tick-log-events", "v13-lean-push-log",
        "v14-push-log-time-ranges", "v15-logs-without-foreign-keys", "v16-adventure-updates-in-place",
        "v17-outbox-progress-on-its-page", "v18-pushes-through-ticks", "v19-push-log-without-key",
        "v20-activity-changes", "v21-deflated-game-text", "v22-outbox-claimed-in-place", "v23-push-columns-as-codes",
        "v24-ids-compared-as-bytes", "v25-ids-as-codes-in-the-logs", "v26-outbox-holds-unfinished-pushes",
        "v27-pushes-claimed-in-commit-order",
    ]

    /// Two servers starting at once on an empty database: one migrates, the other
    /// waits on the migration lock and finds nothing left to do.
    @Test func twoServersStartingAtOnceMigrateOnce() async throws {
        let location = try await PostgresTestServer.shared.freshDatabase()
        async let first = PostgresStore.open(location)
        async let second = PostgresStore.open(location)
        let stores = try await [first, second]
        for store in stores {
            #expect(try await store.appliedMigrations() == Self.everyMigration)
            await store.close()
        }
        let reopened = try await PostgresStore.open(location)
        #expect(try await reopened.appliedMigrations() == Self.everyMigration)
        await reopened.close()
    }
}
