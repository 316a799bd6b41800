/// A broadcast channel's id as APNs makes it (`apns-channel-id`): base64 text
/// that the app hands to `Activity.request(…, pushType: .channel(id))` and the
/// server names in every broadcast. Not to be confused with `ChannelID`, the
/// party's Push To Talk channel.
public struct BroadcastChannelID: StringIdentifier {
    /// Apple publishes no length ("don't make assumptions on the channel ID
    /// size"); this bound only keeps something that is no id out of a header.
    public static let maximumLength = 1024

    public let rawValue: String

    /// As APNs gave it or as it was stored; `isWellFormed` tells whether it could be one.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Checked: standard base64 (with its padding), within `maximumLength`.
    public init(checking text: String) throws(InvalidBroadcastChannelID) {
        guard Self.isWellFormed(text) else { throw InvalidBroadcastChannelID(text: text) }
        self.init(text)
    }

    public var isWellFormed: Bool { Self.isWellFormed(rawValue) }

    /// Base64 of RFC 4648 §4: letters, digits, `+`, `/`, a length that is a
    /// multiple of four, and `=` only as the last one or two characters.
    public static func isWellFormed(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumLength, bytes.count.isMultiple(of: 4) else { return false }
        let padding = bytes.reversed().prefix { $0 == UInt8(ascii: "=") }.count
        guard padding <= 2 else { return false }
        return bytes.dropLast(padding).allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"):
                true
            default:
                false
            }
        }
    }
}

public struct InvalidBroadcastChannelID: Error, Hashable, Sendable, CustomStringConvertible {
    public let text: String

    public init(text: String) { self.text = text }

    public var description: String {
        "'\(text.prefix(60))' is not a broadcast channel id (base64 text as APNs returns it in apns-channel-id, "
            + "at most \(BroadcastChannelID.maximumLength) characters)"
    }
}

/// `message-storage-policy` of a broadcast channel, chosen when it is made and
/// fixed for its life: whether APNs keeps a broadcast for a device that cannot
/// take it at once. See docs/apns.md, "Broadcast channels: the facts the code relies on".
public enum MessageStoragePolicy: Int, Codable, Sendable, CaseIterable, CustomStringConvertible {
    /// `0`: nothing is kept; a broadcast reaches the devices it reaches at once.
    /// Allows a larger publishing budget, and only `apns-expiration: 0`.
    case noMessageStored = 0
    /// `1`: the most recent broadcast is kept, at most 8 hours (less with an earlier `apns-expiration`).
    case mostRecentMessageStored = 1

    public var description: String {
        switch self {
        case .noMessageStored: "no message stored"
        case .mostRecentMessageStored: "most recent message stored"
        }
    }
}
