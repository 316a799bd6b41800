import Foundation

/// Runs the built `rangers` executable as a user would, capturing its output.
struct RangersProcess {
    typealias Result = Subprocess.Result

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

    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> Result {
        try await Subprocess.run(executable, arguments, environment: environment)
    }
}
