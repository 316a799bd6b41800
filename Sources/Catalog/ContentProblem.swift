/// One thing wrong with Content/, located precisely enough to fix it:
/// `bosses.json: bosses[3] (fire-imp).abilities: must not be empty`.
public struct ContentProblem: Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var location: String
    public var message: String

    public init(file: String, location: String = "", message: String) {
        self.file = file
        self.location = location
        self.message = message
    }

    public var description: String {
        location.isEmpty ? "\(file): \(message)" : "\(file): \(location): \(message)"
    }
}

public struct ContentError: Error, CustomStringConvertible {
    public var problems: [ContentProblem]

    public var description: String {
        "Content/ has \(problems.count) problem\(problems.count == 1 ? "" : "s"):\n"
            + problems.map { "  \($0)" }.joined(separator: "\n")
    }
}
