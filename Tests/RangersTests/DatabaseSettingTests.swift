import Foundation
import StoreTestSupport
import Testing

/// A PostgreSQL database that cannot be used is refused in one line naming the
/// setting, with exit status 2, and the password never shows.
@Suite struct DatabaseSettingTests {
    static let gameMasterKey = "0123456789abcdef0123456789abcdef"
    static let password = "s3cret-pa55word"

    func expectRefused(_ arguments: [String], url: String, says: String,
                       sourceLocation: SourceLocation = #_sourceLocation) async throws {
        for viaEnvironment in [false, true] {
            let result = try await RangersProcess.run(
                viaEnvironment ? arguments : arguments + ["--database", url],
                environment: ["RANGERS_GAME_MASTER_KEY": Self.gameMasterKey,
                              "RANGERS_DATABASE_URL": viaEnvironment ? url : ""])
            let lines = result.stderr.split(separator: "\n")
            #expect(result.status == 2, "\(arguments) \(result.stderr)", sourceLocation: sourceLocation)
            #expect(lines.count == 1, "one line, not: \(result.stderr)", sourceLocation: sourceLocation)
            #expect(result.stderr.contains("databaseURL"), "names the setting: \(result.stderr)", sourceLocation: sourceLocation)
            #expect(result.stderr.contains(says), "\(result.stderr)", sourceLocation: sourceLocation)
            #expect(!(result.stdout + result.stderr).contains(Self.password), "the password shows", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: [["serve", "--apns", "simulator", "--port", "0"], ["demo"], ["replay", "some-adventure"]])
    func aURLThatDoesNotParseOrAServerThatDoesNotAnswer(command: [String]) async throws {
        try await expectRefused(command, url: "mysql://root:\(Self.password)@localhost/rangers", says: "scheme is 'mysql'")
        try await expectRefused(command, url: "postgres://root:\(Self.password)@localhost", says: "names no database")
        let port = try PostgresTestServer.freePort()
        try await expectRefused(command, url: "postgres://root:\(Self.password)@127.0.0.1:\(port)/rangers?sslmode=disable",
                                says: "cannot reach PostgreSQL at 127.0.0.1:\(port)")
    }

    @Test(.enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.skipped)),
          arguments: [["serve", "--apns", "simulator", "--port", "0"], ["replay", "some-adventure"]])
    func aWrongPasswordOrAMissingDatabase(command: [String]) async throws {
        let port = try await PostgresTestServer.shared.start()
        try await expectRefused(command, url: "postgres://postgres:\(Self.password)@127.0.0.1:\(port)/postgres?sslmode=disable",
                                says: "refused user 'postgres'")
        try await expectRefused(
            command, url: "postgres://postgres:\(PostgresTestServer.password)@127.0.0.1:\(port)/no_such_database?sslmode=disable",
            says: "database 'no_such_database' does not exist")
    }

    @Test func aSQLiteFileAndAPostgreSQLDatabaseAtOnceIsAMistake() async throws {
        let result = try await RangersProcess.run(["serve", "--apns", "simulator", "--db", "x.sqlite", "--database", "postgres://u@h/d"],
                                                  environment: ["RANGERS_GAME_MASTER_KEY": Self.gameMasterKey])
        #expect(result.status == 2)
        #expect(result.stderr.contains("pass one of them"))
    }
}
