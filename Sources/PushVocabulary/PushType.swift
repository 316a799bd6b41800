/// `apns-push-type`: what a push is, which decides its topic suffix and size limit.
/// One enum from the policy's decision through the outbox to the APNs request.
public enum PushType: String, Sendable, CaseIterable, Codable {
    case alert
    case background
    case liveactivity
    case pushtotalk
    case voip
    case location
    case complication
    case fileprovider
    case mdm

    /// What `apns-topic` must end with, after the bundle id.
    public var topicSuffix: String {
        switch self {
        case .liveactivity: ".push-type.liveactivity"
        case .pushtotalk: ".voip-ptt"
        case .voip: ".voip"
        case .location: ".location-query"
        case .complication: ".complication"
        case .fileprovider: ".pushkit.fileprovider"
        case .alert, .background, .mdm: ""
        }
    }

    /// Largest body APNs accepts, in bytes: 5 KB for VoIP (Push To Talk is VoIP), 4 KB otherwise.
    public var payloadLimit: Int {
        switch self {
        case .voip, .pushtotalk: 5120
        default: 4096
        }
    }

    public func topic(bundleID: String) -> Topic { Topic(self, bundleID: bundleID) }
}

/// `apns-topic`: the app's bundle id and, for most push types, a suffix naming
/// the kind of push (`.push-type.liveactivity`, `.voip-ptt`).
public struct Topic: Hashable, Codable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    public init(_ pushType: PushType, bundleID: String) { rawValue = bundleID + pushType.topicSuffix }

    /// A topic as stored or as given; a request checks that it fits its push type.
    public init(rawValue: String) { self.rawValue = rawValue }

    public init(stringLiteral value: String) { rawValue = value }

    public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }

    /// The bundle id this topic names for `pushType`; nil when it lacks that type's suffix.
    public func bundleID(of pushType: PushType) -> String? {
        guard rawValue.hasSuffix(pushType.topicSuffix), rawValue.count > pushType.topicSuffix.count else { return nil }
        return String(rawValue.dropLast(pushType.topicSuffix.count))
    }
}

/// `apns-priority` of the pushes the game decides.
public enum Priority: Int, Codable, Sendable, Comparable, CustomStringConvertible {
    /// Delivered opportunistically; no budget.
    case low = 5
    /// Delivered at once; counts against the app's hourly budget.
    case high = 10

    public static func < (lhs: Priority, rhs: Priority) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { String(rawValue) }
}
