import Foundation

/// A command run from the repository's root, as a developer would in a shell.
enum Subprocess {
    /// Runs `command` found on PATH with stdout and stderr together, on a GCD
    /// thread: these runs take minutes, which no cooperative thread should spend waiting.
    static func run(_ command: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try runWaiting(command, arguments) })
            }
        }
    }

    /// The same, blocking the calling thread.
    static func runWaiting(_ command: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [command] + arguments
        process.currentDirectoryURL = RangersProcess.repositoryRoot
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}
