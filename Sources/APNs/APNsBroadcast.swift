import Foundation
import PushVocabulary

/// One Live Activity update or end sent to every device subscribed to a broadcast
/// channel (`POST /4/broadcasts/apps/<bundle id>`). There is no device token and
/// no `apns-topic`: the channel and the bundle id in the path say where it goes.
/// `validate()` is called before anything is sent.
public struct APNsBroadcastRequest: Hashable, Sendable {
    /// "the payload is limited to a maximum size of 5 KB (5,120 bytes)".
    public static let payloadLimit = 5120
    /// Broadcasts are Live Activity pushes: 5 (opportunistic) or 10 (immediate).
    public static let priorities: Set<Int> = [5, 10]

    public var channelID: BroadcastChannelID
    /// The app's bare bundle id, without a push type suffix.
    public var bundleID: String
    public var priority: Int
    /// `apns-expiration`, unix seconds; 0 = deliver once, never store (the only
    /// value a channel without message storage accepts); nil = header left out.
    public var expiration: Int?
    /// `apns-request-id`; APNs echoes it back. Generated when nil.
    public var requestID: UUID?
    public var payload: Data

    public init(channelID: BroadcastChannelID, bundleID: String, priority: Int, expiration: Int? = nil,
                requestID: UUID? = nil, payload: Data) {
        self.channelID = channelID
        self.bundleID = bundleID
        self.priority = priority
        self.expiration = expiration
        self.requestID = requestID
        self.payload = payload
    }

    /// The mistakes APNs would answer with a 400 or 413, caught before sending.
    public func validate() throws(APNsChannelRequestError) {
        try APNsChannelRequestError.check(bundleID: bundleID)
        try APNsChannelRequestError.check(channelID)
        guard Self.priorities.contains(priority) else { throw .badPriority(priority) }
        if let expiration, expiration < 0 { throw .badExpiration(expiration) }
        guard !payload.isEmpty else { throw .payloadEmpty }
        guard payload.count <= Self.payloadLimit else { throw .payloadTooLarge(bytes: payload.count, limit: Self.payloadLimit) }
    }
}

/// A channel's configuration as APNs reads it back.
public struct BroadcastChannelConfiguration: Hashable, Sendable {
    public var storagePolicy: MessageStoragePolicy
    /// `push-type`; APNs allows only `LiveActivity`.
    public var pushType: String

    public init(storagePolicy: MessageStoragePolicy, pushType: String = BroadcastChannelConfiguration.liveActivityPushType) {
        self.storagePolicy = storagePolicy
        self.pushType = pushType
    }

    /// The one `push-type` a channel can have, spelt as the management API spells it.
    public static let liveActivityPushType = "LiveActivity"
}

/// What a channel request (management or broadcast) should lead to.
public enum APNsChannelOutcome: Hashable, Sendable {
    /// Done: created (201), read or listed (200), deleted (204), broadcast accepted (200).
    /// APNs says nothing of how many devices a broadcast reached.
    case succeeded
    /// Stop using this channel: ChannelNotRegistered, BadChannelId.
    case channelGone(APNsReason)
    /// No channel made: the app has as many as APNs allows (CannotCreateChannelConfig).
    case channelLimitReached
    /// Try again later: 5xx, TooManyRequests, a lost connection, GOAWAY.
    case retryLater(APNsReason)
    /// The request (or the provider's credentials, or the app's broadcast
    /// capability) is wrong; retrying will not help.
    case rejected(APNsReason)

    public init(status: Int, reason: APNsReason?) {
        let reason = reason ?? .unknown("HTTP \(status)")
        switch (status, reason) {
        case (200...299, _): self = .succeeded
        case (500...599, _): self = .retryLater(reason)
        case (_, .channelNotRegistered), (_, .badChannelId): self = .channelGone(reason)
        case (_, .cannotCreateChannelConfig): self = .channelLimitReached
        case (_, .tooManyRequests), (_, .idleTimeout): self = .retryLater(reason)
        default: self = .rejected(reason)
        }
    }
}

/// What APNs answered a channel request, parsed.
public struct APNsChannelResponse: Hashable, Sendable {
    public var status: Int
    /// `apns-request-id`: the request's, or one APNs made up.
    public var requestID: String?
    public var reason: APNsReason?
    /// `apns-channel-id`, with 201 to a create.
    public var channelID: BroadcastChannelID?
    public var body: Data

    public init(_ http: APNsHTTPResponse) {
        status = http.status
        requestID = http.headers["apns-request-id"]
        // The error body is the device pushes' ({"reason": …}); 201 and 204 are successes here too.
        reason = (200...299).contains(http.status) ? nil : APNsResponse(http).reason
        channelID = http.headers["apns-channel-id"].map { BroadcastChannelID($0) }
        body = http.body
    }

    public var outcome: APNsChannelOutcome { APNsChannelOutcome(status: status, reason: reason) }
}

/// The result of one channel request, after any retries.
public struct APNsChannelAnswer<Value: Sendable>: Sendable {
    public var outcome: APNsChannelOutcome
    /// What was asked for, when `outcome` is `.succeeded`: the new channel's id,
    /// a configuration, the list of channels (nothing for a delete or a broadcast).
    public var value: Value?
    /// The last answer from APNs, if one came.
    public var response: APNsChannelResponse?
    public var attempts: Int

    public init(outcome: APNsChannelOutcome, value: Value?, response: APNsChannelResponse?, attempts: Int) {
        self.outcome = outcome
        self.value = value
        self.response = response
        self.attempts = attempts
    }
}

/// A channel request that cannot be right, caught before sending.
public enum APNsChannelRequestError: Error, Hashable, Sendable, CustomStringConvertible {
    case badBundleID(String)
    case badChannelID(String)
    case badPriority(Int)
    case badExpiration(Int)
    case payloadEmpty
    case payloadTooLarge(bytes: Int, limit: Int)

    public var description: String {
        switch self {
        case .badBundleID(let bundleID):
            "'\(bundleID.prefix(80))' is not a bundle id (letters, digits, '.' and '-', without the .push-type.liveactivity suffix)"
        case .badChannelID(let text): InvalidBroadcastChannelID(text: text).description
        case .badPriority(let priority): "priority \(priority) is not allowed for a broadcast (5 or 10)"
        case .badExpiration(let value): "expiration \(value) is negative"
        case .payloadEmpty: "the payload is empty"
        case .payloadTooLarge(let bytes, let limit): "the payload is \(bytes) bytes; a broadcast may have at most \(limit)"
        }
    }

    /// The path carries the bare bundle id: "Ensure that no push type suffix is
    /// added to the bundle ID" (TopicDisallowed).
    static func check(bundleID: String) throws(APNsChannelRequestError) {
        let allowed = !bundleID.isEmpty && bundleID.utf8.count <= 255 && bundleID.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "."), UInt8(ascii: "-"):
                true
            default:
                false
            }
        }
        // Only the Live Activity suffix: others (".voip", ".complication") may end a real bundle id.
        guard allowed, !bundleID.hasSuffix(PushType.liveactivity.topicSuffix) else { throw .badBundleID(bundleID) }
    }

    static func check(_ channelID: BroadcastChannelID) throws(APNsChannelRequestError) {
        guard channelID.isWellFormed else { throw .badChannelID(channelID.rawValue) }
    }
}
