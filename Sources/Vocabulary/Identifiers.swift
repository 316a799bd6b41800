import Foundation

// The ids every module above this one passes around. Content ids (heroes,
// bosses, routes) belong to the game and live in `Game`.

public struct PlayerID: StringIdentifier {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

public struct PartyID: StringIdentifier {
    /// Kept compact: a node holds it with every running adventure.
    private let text: IdentifierText
    public var rawValue: String { text.string }
    public init(_ rawValue: String) { text = IdentifierText(rawValue) }
    public static func random() -> PartyID { PartyID(UUID().uuidString.lowercased()) }
}

public struct AdventureID: StringIdentifier {
    /// Kept compact: a node holds it with every running adventure.
    private let text: IdentifierText
    public var rawValue: String { text.string }
    public init(_ rawValue: String) { text = IdentifierText(rawValue) }
    /// A caller makes the id before storing: the start pushes already carry it.
    public static func random() -> AdventureID { AdventureID(UUID().uuidString.lowercased()) }
}

/// The id the app's ActivityKit gave a Live Activity.
public struct ActivityID: StringIdentifier {
    /// Kept compact: a node holds those of every running adventure.
    private let text: IdentifierText
    public var rawValue: String { text.string }
    public init(_ rawValue: String) { text = IdentifierText(rawValue) }
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
public struct CommandID: SequenceIdentifier {
    public let rawValue: Int64
    public init(_ rawValue: Int64) { self.rawValue = rawValue }
}

/// One push in the outbox, from the policy's decision to APNs' answer.
public struct OutboxID: SequenceIdentifier {
    public let rawValue: Int64
    public init(_ rawValue: Int64) { self.rawValue = rawValue }
}

/// The server's own id for one adventure's broadcast channel of one language:
/// what the outbox targets. The channel APNs made for it (`BroadcastChannelID`)
/// is looked up when a broadcast is claimed, as a device token is, so a channel
/// made again after APNs lost it takes the broadcasts queued before.
public struct FollowerChannelID: StringIdentifier {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public static func random() -> FollowerChannelID { FollowerChannelID(UUID().uuidString.lowercased()) }
}
