import Foundation

/// Runs the built `rangers` executable as a user would, capturing its output.
struct RangersProcess {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `swift test` builds `rangers` (the test target depends on it) next to the test bundle.
    static let executable: URL = {
        let productsDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [productsDirectory, productsDirectory.deletingLastPathComponent()]
            .map { $0.appendingPathComponent("rangers") }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            fatalError("rangers executable not found near \(productsDirectory.path)")
        }
        return found
    }()

    /// Runs on a GCD thread, not the test's: waiting for a child process must not hold
    /// one of Swift concurrency's few cooperative threads while other tests need them.
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Swift.Result { try runBlocking(arguments, environment: environment) })
            }
        }
    }

    private static func runBlocking(_ arguments: [String], environment: [String: String]) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = repositoryRoot
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read before waiting: a full pipe would otherwise block the child.
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus,
                      stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self))
    }
}
