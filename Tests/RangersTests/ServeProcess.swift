import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RangersClient
import StoreTestSupport

/// One `rangers serve` process (with the APNs simulator inside it unless told otherwise), started and
/// waited for until it answers `/healthz`.
struct ServeProcess {
    let process: Process

    /// A SQLite database is named with `--db`; a PostgreSQL one with
    /// `RANGERS_DATABASE_URL`, as a studio keeps its password out of the process list.
    /// `environment` adds to (or replaces in) the tests' own; `log`, if given, gets what the process prints.
    static func start(database: TestDatabase, port: Int, gameMasterKey: String, api: ServerAPI,
                      arguments: [String] = [], environment extra: [String: String] = [:],
                      log: URL? = nil) async throws -> ServeProcess {
        let process = Process()
        process.executableURL = RangersProcess.executable
        // Every player of a test signs up from this machine's one address: the limits are tested where they are meant.
        var environment = ProcessInfo.processInfo.environment
            .merging(["RANGERS_GAME_MASTER_KEY": gameMasterKey, "RANGERS_SIGNUPS_PER_MINUTE": "100000",
                      "RANGERS_FAILED_AUTH_PER_MINUTE": "100000"]) { $1 }
            .merging(extra) { $1 }
        environment["RANGERS_DATABASE_URL"] = nil
        process.arguments = ["serve", "--port", String(port)] + arguments
        // The simulator inside the process unless the test says where pushes go.
        if !arguments.contains("--apns"), extra["RANGERS_APNS"] == nil { process.arguments! += ["--apns", "simulator"] }
        switch database.engine {
        case .sqlite: process.arguments! += ["--db", database.location]
        case .postgres: environment["RANGERS_DATABASE_URL"] = database.location
        }
        process.currentDirectoryURL = RangersProcess.repositoryRoot
        process.environment = environment
        if let log {
            FileManager.default.createFile(atPath: log.path, contents: nil)
            let handle = try FileHandle(forWritingTo: log)
            process.standardOutput = handle
            process.standardError = handle
        } else {
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        try await api.waitFor("rangers serve to answer", within: .seconds(20)) {
            guard process.isRunning else { throw ServerAPI.Failure(description: "rangers serve exited with \(process.terminationStatus)") }
            return (try? await api.health()) != nil
        }
        return ServeProcess(process: process)
    }

    /// SIGKILL: no chance to finish anything.
    func kill() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// SIGTERM, then the exit status once it has stopped, or nil if it is still
    /// running after `limit`.
    func terminate(within limit: Duration = .seconds(20)) async throws -> Int32? {
        process.terminate()
        let deadline = ContinuousClock.now + limit
        while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        return process.isRunning ? nil : process.terminationStatus
    }
}

/// The server's HTTP API for process tests, through the client generated from its
/// OpenAPI document: a request the document does not describe can't be written here.
struct ServerAPI: Sendable {
    let base: String

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// As the holder of `key` (a player's or the game master's); nil for the routes open to all.
    func client(_ key: String? = nil) -> Client {
        Client(serverURL: URL(string: base)!, key: key, session: Self.session)
    }

    func health() async throws -> Components.Schemas.Health {
        try await client().health().ok.body.json
    }

    func waitFor(_ what: String, within limit: Duration, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + limit
        while try await !condition() {
            guard ContinuousClock.now < deadline else { throw Failure(description: "timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 10
        return URLSession(configuration: configuration)
    }()
}
