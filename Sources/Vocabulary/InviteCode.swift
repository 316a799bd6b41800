/// What a player types to join a party: 8 characters from an alphabet without
/// the look-alikes 0/O and 1/I, so a code read aloud or off a screen is typed right.
public struct InviteCode: Hashable, Codable, Sendable, CustomStringConvertible {
    public static let alphabet = Array("23456789ABCDEFGHJKLMNPQRSTUVWXYZ")
    public static let length = 8

    public let rawValue: String

    /// Accepts what a person types: any case, with spaces or dashes between groups.
    /// Nil when it cannot be a code at all. Only ASCII letters are folded, so a
    /// code is exactly what the API document's pattern describes ("ß" does not
    /// become "SS").
    public init?(typed: String) {
        let cleaned = typed.filter { $0 != " " && $0 != "-" }
            .map { $0.isASCII ? Character($0.uppercased()) : $0 }
        guard cleaned.count == Self.length, cleaned.allSatisfy(Self.alphabet.contains) else { return nil }
        rawValue = String(cleaned)
    }

    public static func random() -> InviteCode {
        var generator = SystemRandomNumberGenerator()
        let code = String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
        return InviteCode(typed: code)!
    }

    public var description: String { rawValue }
}
