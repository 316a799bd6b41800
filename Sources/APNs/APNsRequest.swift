import Foundation

/// `apns-push-type`: what the push is, which decides the topic suffix and size limit.
public enum APNsPushType: String, Sendable, CaseIterable, Codable {
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

    public func topic(bundleID: String) -> String { bundleID + topicSuffix }
}

/// One push to one device token. Build it with the factory for its push type so
/// the headers are right; `validate()` is called before anything is sent.
public struct APNsRequest: Hashable, Sendable {
    /// Token lengths differ (Push To Talk tokens explicitly so): any even-length hex in this range.
    public static let tokenLengths = 16...512

    public var deviceToken: String
    public var pushType: APNsPushType
    public var topic: String
    /// 10 (immediate), 5 (opportunistic) or 1 (lowest power).
    public var priority: Int
    /// `apns-expiration`, unix seconds; 0 = deliver once or never, nil = APNs's default.
    public var expiration: Int?
    /// `apns-id`; APNs echoes it back. Generated when nil.
    public var apnsID: UUID?
    public var collapseID: String?
    public var payload: Data

    public init(deviceToken: String, pushType: APNsPushType, topic: String, priority: Int, expiration: Int? = nil,
                apnsID: UUID? = nil, collapseID: String? = nil, payload: Data) {
        self.deviceToken = deviceToken
        self.pushType = pushType
        self.topic = topic
        self.priority = priority
        self.expiration = expiration
        self.apnsID = apnsID
        self.collapseID = collapseID
        self.payload = payload
    }

    public static func liveActivity(deviceToken: String, bundleID: String, priority: Int, expiration: Int? = nil,
                                    payload: Data) -> APNsRequest {
        APNsRequest(deviceToken: deviceToken, pushType: .liveactivity, topic: APNsPushType.liveactivity.topic(bundleID: bundleID),
                    priority: priority, expiration: expiration, payload: payload)
    }

    /// Always priority 10 and expiration 0: news of audio is worthless later.
    public static func pushToTalk(deviceToken: String, bundleID: String, payload: Data) -> APNsRequest {
        APNsRequest(deviceToken: deviceToken, pushType: .pushtotalk, topic: APNsPushType.pushtotalk.topic(bundleID: bundleID),
                    priority: 10, expiration: 0, payload: payload)
    }

    public static func alert(deviceToken: String, bundleID: String, priority: Int = 10, expiration: Int? = nil,
                             payload: Data) -> APNsRequest {
        APNsRequest(deviceToken: deviceToken, pushType: .alert, topic: bundleID, priority: priority,
                    expiration: expiration, payload: payload)
    }

    /// The mistakes APNs would answer with a 400 or 413, caught before sending.
    public func validate() throws(APNsRequestError) {
        guard Self.tokenLengths.contains(deviceToken.utf8.count), deviceToken.utf8.count.isMultiple(of: 2),
              deviceToken.utf8.allSatisfy(\.isHexDigit)
        else { throw .badDeviceToken(length: deviceToken.utf8.count) }
        guard [1, 5, 10].contains(priority) else { throw .badPriority(priority) }
        if pushType == .pushtotalk, priority != 10 { throw .badPriority(priority) }
        guard !topic.isEmpty, topic.hasSuffix(pushType.topicSuffix) else { throw .badTopic(topic, pushType) }
        if let expiration, expiration < 0 { throw .badExpiration(expiration) }
        guard !payload.isEmpty else { throw .payloadEmpty }
        guard payload.count <= pushType.payloadLimit else { throw .payloadTooLarge(bytes: payload.count, limit: pushType.payloadLimit) }
        if let collapseID, collapseID.utf8.count > 64 { throw .badCollapseID }
    }
}

public enum APNsRequestError: Error, Hashable, Sendable, CustomStringConvertible {
    case badDeviceToken(length: Int)
    case badPriority(Int)
    case badTopic(String, APNsPushType)
    case badExpiration(Int)
    case badCollapseID
    case payloadEmpty
    case payloadTooLarge(bytes: Int, limit: Int)

    public var description: String {
        switch self {
        case .badDeviceToken(let length):
            "the device token must be an even number (\(APNsRequest.tokenLengths.lowerBound)–\(APNsRequest.tokenLengths.upperBound)) of hex digits; got \(length) characters"
        case .badPriority(let priority): "priority \(priority) is not allowed (1, 5 or 10; Push To Talk: 10)"
        case .badTopic(let topic, let type): "topic '\(topic)' does not end with '\(type.topicSuffix)' as \(type.rawValue) pushes need"
        case .badExpiration(let value): "expiration \(value) is negative"
        case .badCollapseID: "apns-collapse-id is longer than 64 bytes"
        case .payloadEmpty: "the payload is empty"
        case .payloadTooLarge(let bytes, let limit): "the payload is \(bytes) bytes; APNs accepts at most \(limit)"
        }
    }
}

extension UInt8 {
    var isHexDigit: Bool { (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self) }
}
