/// An APNs device token (a Live Activity's update token, a device's push-to-start
/// token, a Push To Talk token) as the app sends it: hex. Kept lowercased, so the
/// same token sent in another case is recognised as the same.
public struct PushToken: Hashable, Codable, Sendable, CustomStringConvertible {
    /// Tokens are opaque and their length is not fixed (Push To Talk's vary), but
    /// none comes near the upper bound: anything longer is not a token.
    public static let hexLengths = 16...512

    public let hex: String

    public init(hex: String) throws(InvalidPushToken) {
        guard Self.hexLengths.contains(hex.utf8.count) else {
            throw InvalidPushToken(
                "a push token is \(Self.hexLengths.lowerBound)…\(Self.hexLengths.upperBound) hex digits, not \(hex.utf8.count) characters")
        }
        guard Self.isEvenLengthHex(hex) else { throw InvalidPushToken("a push token is an even number of hex digits (0-9, a-f)") }
        self.hex = hex.lowercased()
    }

    /// For values read back from storage, which were checked on the way in.
    public init(stored hex: String) { self.hex = hex }

    /// An even number of hex digits, either case, within `hexLengths`: what APNs
    /// accepts as a token in a request path.
    public static func isWellFormed(_ hex: String) -> Bool {
        hexLengths.contains(hex.utf8.count) && isEvenLengthHex(hex)
    }

    private static func isEvenLengthHex(_ text: String) -> Bool {
        guard text.utf8.count.isMultiple(of: 2) else { return false }
        // From the string's buffer: checked on every push sent.
        return text.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(\.isHexDigit) }
            ?? text.utf8.allSatisfy(\.isHexDigit)
    }

    public var description: String { hex }
}

public struct InvalidPushToken: Error, Hashable, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

extension UInt8 {
    /// 0-9, A-F or a-f in ASCII.
    public var isHexDigit: Bool { (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self) }
}
