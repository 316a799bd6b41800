import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StoreTestSupport

/// One `rangers serve` process (with the APNs simulator inside it), started and
/// waited for until it answers `/healthz`.
struct ServeProcess {
    let process: Process

    /// A SQLite database is named with `--db`; a PostgreSQL one with
    /// `RANGERS_DATABASE_URL`, as a studio keeps its password out of the process list.
    /// `environment` adds to (or replaces in) the tests' own; `log`, if given, gets what the process prints.
    static func start(database: TestDatabase, port: Int, gameMasterKey: String, api: HTTP,
                      arguments: [String] = [], environment extra: [String: String] = [:],
                      log: URL? = nil) async throws -> ServeProcess {
        let process = Process()
        process.executableURL = RangersProcess.executable
        var environment = ProcessInfo.processInfo.environment.merging(["RANGERS_GAME_MASTER_KEY": gameMasterKey]) { $1 }
            .merging(extra) { $1 }
        environment["RANGERS_DATABASE_URL"] = nil
        process.arguments = ["serve", "--port", String(port)] + arguments
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
            guard process.isRunning else { throw HTTP.Failure(description: "rangers serve exited with \(process.terminationStatus)") }
            return (try? await api.json("GET", "/healthz")) != nil
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

/// JSON over HTTP for process tests.
struct HTTP: Sendable {
    let base: String

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    func json(_ method: String, _ path: String, key: String? = nil, body: [String: Any]? = nil) async throws -> [String: Any] {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        request.timeoutInterval = 10
        if let key { request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            throw Failure(description: "\(method) \(path): \(status) \(String(decoding: data, as: UTF8.self))")
        }
        return (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    func waitFor(_ what: String, within limit: Duration, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + limit
        while try await !condition() {
            guard ContinuousClock.now < deadline else { throw Failure(description: "timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}
