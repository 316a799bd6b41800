import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// `rangers serve` as a process: it refuses bad settings by name, and otherwise
/// answers HTTP and stops cleanly on SIGTERM.
@Suite struct ServeCommandTests {
    static let gameMasterKey = "0123456789abcdef0123456789abcdef"

    func scratchDatabase() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString).sqlite")
    }

    @Test func badSettingsAreRefusedByName() async throws {
        let database = scratchDatabase()
        let short = try await RangersProcess.run(["serve", "--db", database.path, "--port", "0"],
                                                 environment: ["RANGERS_GAME_MASTER_KEY": "short"])
        #expect(short.status == 2)
        #expect(short.stderr.contains("gameMasterKey: must be at least 32 characters"))
        #expect(!short.stderr.contains("short\n"))
        let port = try await RangersProcess.run(["serve", "--db", database.path], environment: [
            "RANGERS_GAME_MASTER_KEY": Self.gameMasterKey, "RANGERS_PORT": "eighty"])
        #expect(port.status == 2)
        #expect(port.stderr.contains("RANGERS_PORT"))
        let mode = try await RangersProcess.run(["serve", "--db", database.path, "--apns", "carrier-pigeon"],
                                                environment: ["RANGERS_GAME_MASTER_KEY": Self.gameMasterKey])
        #expect(mode.status == 2)
        #expect(mode.stderr.contains("must be simulator or apple"))
    }

    @Test func servesHTTPAndStopsOnSIGTERM() async throws {
        let database = scratchDatabase()
        defer { try? FileManager.default.removeItem(at: database) }
        let port = 20_000 + Int.random(in: 0..<20_000)
        let process = Process()
        process.executableURL = RangersProcess.executable
        process.arguments = ["serve", "--db", database.path, "--port", String(port)]
        process.currentDirectoryURL = RangersProcess.repositoryRoot
        process.environment = ProcessInfo.processInfo.environment.merging(["RANGERS_GAME_MASTER_KEY": Self.gameMasterKey]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()

        // Poll until it answers, with a deadline.
        let health = URL(string: "http://127.0.0.1:\(port)/healthz")!
        var answered: (Data, URLResponse)?
        let deadline = ContinuousClock.now + .seconds(20)
        while answered == nil, ContinuousClock.now < deadline, process.isRunning {
            answered = try? await URLSession.shared.data(from: health)
            if answered == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        let (body, response) = try #require(answered, "rangers serve did not answer on port \(port)")
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: body, as: UTF8.self).contains(#""status":"ok""#))

        process.terminate()  // SIGTERM
        let exited = ContinuousClock.now + .seconds(20)
        while process.isRunning, ContinuousClock.now < exited { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!process.isRunning)
        #expect(process.terminationStatus == 0)
    }
}
