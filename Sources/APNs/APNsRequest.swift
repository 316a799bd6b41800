import Foundation
import PushVocabulary

/// One push to one device token. Build it with the factory for its push type so
/// the headers are right; `validate()` is called before anything is sent.
public struct APNsRequest: Hashable, Sendable {
    /// Token lengths differ (Push To Talk tokens explicitly so): any even-length hex in this range.
    public static let tokenLengths = PushToken.hexLengths

    public var deviceToken: String
    public var pushType: PushType
    public var topic: Topic
    /// 10 (immediate), 5 (opportunistic) or 1 (lowest power).
    public var priority: Int
    /// `apns-expiration`, unix seconds; 0 = deliver once or never, nil = APNs's default.
    public var expiration: Int?
    /// `apns-id`; APNs echoes it back. Generated when nil.
    public var apnsID: UUID?
    public var collapseID: String?
    public var payload: Data

    public init(deviceToken: String, pushType: PushType, topic: Topic, priority: Int, expiration: Int? = nil,
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
        APNsRequest(deviceToken: deviceToken, pushType: .liveactivity, topic: PushType.liveactivity.topic(bundleID: bundleID),
                    priority: priority, expiration: expiration, payload: payload)
    }

    /// Always priority 10 and expiration 0: news of audio is worthless later.
    public static func pushToTalk(deviceToken: String, bundleID: String, payload: Data) -> APNsRequest {
        APNsRequest(deviceToken: deviceToken, pushType: .pushtotalk, topic: PushType.pushtotalk.topic(bundleID: bundleID),
                    priority: 10, expiration: 0, payload: payload)
    }

    public static func alert(deviceToken: String, bundleID: String, priority: Int = 10, expiration: Int? = nil,
                             payload: Data) -> APNsRequest {
        APNsRequest(deviceToken: deviceToken, pushType: .alert, topic: PushType.alert.topic(bundleID: bundleID), priority: priority,
                    expiration: expiration, payload: payload)
    }

    /// The mistakes APNs would answer with a 400 or 413, caught before sending.
    public func validate() throws(APNsRequestError) {
        guard PushToken.isWellFormed(deviceToken) else { throw .badDeviceToken(length: deviceToken.utf8.count) }
        guard [1, 5, 10].contains(priority) else { throw .badPriority(priority) }
        if pushType == .pushtotalk, priority != 10 { throw .badPriority(priority) }
        guard !topic.rawValue.isEmpty, topic.rawValue.hasSuffix(pushType.topicSuffix) else { throw .badTopic(topic.rawValue, pushType) }
        if let expiration, expiration < 0 { throw .badExpiration(expiration) }
        guard !payload.isEmpty else { throw .payloadEmpty }
        guard payload.count <= pushType.payloadLimit else { throw .payloadTooLarge(bytes: payload.count, limit: pushType.payloadLimit) }
        if let collapseID, collapseID.utf8.count > 64 { throw .badCollapseID }
    }
}

public enum APNsRequestError: Error, Hashable, Sendable, CustomStringConvertible {
    case badDeviceToken(length: Int)
    case badPriority(Int)
    case badTopic(String, PushType)
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
