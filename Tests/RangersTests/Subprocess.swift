import Foundation

/// A program run from the repository's root, as a developer would in a shell.
enum Subprocess {
    struct Result {
        var status: Int32
        var stdout: String
        /// Empty when `mergingStderr`: the streams then come in `stdout` in the order written.
        var stderr: String
    }

    /// Runs on a GCD thread, not the test's: waiting for a child process must not hold
    /// one of Swift concurrency's few cooperative threads while other tests need them.
    static func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:],
                    mergingStderr: Bool = false) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Swift.Result {
                    try runBlocking(executable, arguments, environment: environment, mergingStderr: mergingStderr)
                })
            }
        }
    }

    /// `command` found on PATH, its stderr in its stdout.
    static func run(_ command: String, _ arguments: [String]) async throws -> Result {
        try await run(URL(fileURLWithPath: "/usr/bin/env"), [command] + arguments, mergingStderr: true)
    }

    /// The same, blocking the calling thread.
    static func runBlocking(_ command: String, _ arguments: [String]) throws -> Result {
        try runBlocking(URL(fileURLWithPath: "/usr/bin/env"), [command] + arguments, environment: [:], mergingStderr: true)
    }

    private static func runBlocking(_ executable: URL, _ arguments: [String], environment: [String: String],
                                    mergingStderr: Bool) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = RangersProcess.repositoryRoot
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = mergingStderr ? out : Pipe()
        process.standardOutput = out
        process.standardError = err
        try runWithSignalsUnblocked(process)
        // Read before waiting: a full pipe would otherwise block the child.
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = mergingStderr ? Data() : err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// A child starts with the signal mask of the thread that spawns it, and this one
    /// is a GCD worker, which blocks SIGTERM, SIGINT, SIGHUP and more. A program that
    /// does not reset its mask (Patroni, any Python or shell script) would then never
    /// see the SIGTERM a script sends it to stop: ha-database.sh waited 15 s for
    /// each Patroni. So the mask is emptied for the spawn and put back after it.
    private static func runWithSignalsUnblocked(_ process: Process) throws {
        var none = sigset_t(), previous = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        try process.run()
    }
}
