import Foundation
import Game

// Typed identifiers for what the store names. Players use `Game.PlayerID`, so a
// roster member and a stored player are the same type.

public struct PartyID: StringIdentifier {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public static func random() -> PartyID { PartyID(UUID().uuidString.lowercased()) }
}

public struct AdventureID: StringIdentifier {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// A caller makes the id before storing: the start pushes already carry it.
    public static func random() -> AdventureID { AdventureID(UUID().uuidString.lowercased()) }
}

/// The id the app's ActivityKit gave a Live Activity.
public struct ActivityID: StringIdentifier {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// The app's own id for the device it runs on.
public struct DeviceID: StringIdentifier {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// A party's Push To Talk channel: a stable UUID the app hands to the system.
public struct ChannelID: StringIdentifier {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// One player's place in a Push To Talk channel; pushes to talk target it.
public struct ChannelMemberID: StringIdentifier {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

public struct TransmissionID: StringIdentifier {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public static func random() -> TransmissionID { TransmissionID(UUID().uuidString.lowercased()) }
}

/// A queued or applied command: its position in the order commands arrived.
public struct CommandID: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    public let rawValue: Int64
    public init(_ rawValue: Int64) { self.rawValue = rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { String(rawValue) }
}

/// A row of the outbox: one push to send.
public struct OutboxID: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    public let rawValue: Int64
    public init(_ rawValue: Int64) { self.rawValue = rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { String(rawValue) }
}

/// What a player types to join a party: 8 characters from an alphabet without
/// the look-alikes 0/O and 1/I, so a code read aloud or off a screen is typed right.
public struct InviteCode: Hashable, Codable, Sendable, CustomStringConvertible {
    public static let alphabet = Array("23456789ABCDEFGHJKLMNPQRSTUVWXYZ")
    public static let length = 8

    public let rawValue: String

    /// Accepts what a person types: any case, with spaces or dashes between groups.
    /// Nil when it cannot be a code at all.
    public init?(typed: String) {
        let cleaned = typed.uppercased().filter { $0 != " " && $0 != "-" }
        guard cleaned.count == Self.length, cleaned.allSatisfy(Self.alphabet.contains) else { return nil }
        rawValue = cleaned
    }

    static func random() -> InviteCode {
        var generator = SystemRandomNumberGenerator()
        let code = String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
        return InviteCode(typed: code)!
    }

    public var description: String { rawValue }
}

/// An APNs token as the app sends it: hex. Stored lowercased, so the same token
/// sent in another case is recognised as the same.
public struct PushToken: Hashable, Codable, Sendable, CustomStringConvertible {
    /// Tokens are opaque and their length is not fixed (Push To Talk's vary), but
    /// none comes near this: anything longer is not a token.
    public static let maximumHexLength = 512
    public static let minimumHexLength = 16

    public let hex: String

    public init(hex: String) throws(StoreError) {
        let lowered = hex.lowercased()
        guard (Self.minimumHexLength...Self.maximumHexLength).contains(lowered.utf8.count) else {
            throw .invalid("a push token is \(Self.minimumHexLength)…\(Self.maximumHexLength) hex digits, not \(hex.utf8.count) characters")
        }
        guard lowered.utf8.count.isMultiple(of: 2),
              lowered.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) })
        else { throw .invalid("a push token is an even number of hex digits (0-9, a-f)") }
        self.hex = lowered
    }

    /// Only for values read back from the store, which were checked on the way in.
    init(stored hex: String) { self.hex = hex }

    public var description: String { hex }
}
