/// A code a person types: 8 characters from an alphabet without the look-alikes
/// 0/O and 1/I, so a code read aloud or off a screen is typed right. Accepts any
/// case, with spaces or dashes between groups.
public protocol TypedCode: Hashable, Codable, Sendable, CustomStringConvertible {
    var rawValue: String { get }
    /// `rawValue` already cleaned and checked by `init?(typed:)`.
    init(checked rawValue: String)
}

public enum TypedCodeAlphabet {
    public static let characters = Array("23456789ABCDEFGHJKLMNPQRSTUVWXYZ")
    public static let length = 8
}

extension TypedCode {
    /// Nil when `typed` cannot be a code at all. Only ASCII letters are folded,
    /// so a code is exactly what the API document's pattern describes ("ß" does
    /// not become "SS").
    public init?(typed: String) {
        let cleaned = typed.filter { $0 != " " && $0 != "-" }
            .map { $0.isASCII ? Character($0.uppercased()) : $0 }
        guard cleaned.count == TypedCodeAlphabet.length, cleaned.allSatisfy(TypedCodeAlphabet.characters.contains) else {
            return nil
        }
        self.init(checked: String(cleaned))
    }

    public static func random() -> Self {
        var generator = SystemRandomNumberGenerator()
        let code = (0..<TypedCodeAlphabet.length).map { _ in TypedCodeAlphabet.characters.randomElement(using: &generator)! }
        return Self(checked: String(code))
    }

    public var description: String { rawValue }
}

/// What a player types to join a party.
public struct InviteCode: TypedCode {
    public static let alphabet = TypedCodeAlphabet.characters
    public static let length = TypedCodeAlphabet.length

    public let rawValue: String

    public init(checked rawValue: String) { self.rawValue = rawValue }
}

/// What a player types, or a shared link carries, to follow another party's
/// adventure: only an adventure started as followable has one.
public struct FollowCode: TypedCode {
    public let rawValue: String

    public init(checked rawValue: String) { self.rawValue = rawValue }
}
