/// Every `reason` APNs documents, and what the sender should do about each:
/// those of device pushes, and those broadcasts and channel management add
/// (docs/apns.md).
public enum APNsReason: Hashable, Sendable, CustomStringConvertible {
    // 400
    case badCollapseId, badDeviceToken, badExpirationDate, badMessageId, badPriority, badTopic
    case deviceTokenNotForTopic, duplicateHeaders, idleTimeout, invalidPushType, missingDeviceToken
    case missingTopic, payloadEmpty, topicDisallowed
    // 400, broadcasts and channel management
    case featureNotEnabled, missingChannelId, badChannelId, channelNotRegistered, badRequestParams, badRequestPayload
    case missingPushType, cannotCreateChannelConfig
    // 403
    case badCertificate, badCertificateEnvironment, expiredProviderToken, forbidden, invalidProviderToken
    case missingProviderToken, unrelatedKeyIdInToken, badEnvironmentKeyIdInToken
    // 403, broadcasts and channel management
    case topicMismatch
    // 404, 405, 410, 413
    case badPath, methodNotAllowed, expiredToken, unregistered, payloadTooLarge
    // 429, 500, 503
    case tooManyProviderTokenUpdates, tooManyRequests, internalServerError, serviceUnavailable, shutdown
    /// A reason this code does not know yet, kept verbatim.
    case unknown(String)

    private static let byName: [String: APNsReason] = Dictionary(uniqueKeysWithValues: known.map { ($0.description, $0) })

    public static let known: [APNsReason] = [
        .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic,
        .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
        .missingTopic, .payloadEmpty, .topicDisallowed,
        .featureNotEnabled, .missingChannelId, .badChannelId, .channelNotRegistered, .badRequestParams, .badRequestPayload,
        .missingPushType, .cannotCreateChannelConfig,
        .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden, .invalidProviderToken,
        .missingProviderToken, .unrelatedKeyIdInToken, .badEnvironmentKeyIdInToken, .topicMismatch,
        .badPath, .methodNotAllowed, .expiredToken, .unregistered, .payloadTooLarge,
        .tooManyProviderTokenUpdates, .tooManyRequests, .internalServerError, .serviceUnavailable, .shutdown,
    ]

    public init(_ name: String) {
        self = Self.byName[name] ?? .unknown(name)
    }

    /// The name as APNs writes it in `{"reason": …}`.
    public var description: String {
        switch self {
        case .badCollapseId: "BadCollapseId"
        case .badDeviceToken: "BadDeviceToken"
        case .badExpirationDate: "BadExpirationDate"
        case .badMessageId: "BadMessageId"
        case .badPriority: "BadPriority"
        case .badTopic: "BadTopic"
        case .deviceTokenNotForTopic: "DeviceTokenNotForTopic"
        case .duplicateHeaders: "DuplicateHeaders"
        case .idleTimeout: "IdleTimeout"
        case .invalidPushType: "InvalidPushType"
        case .missingDeviceToken: "MissingDeviceToken"
        case .missingTopic: "MissingTopic"
        case .payloadEmpty: "PayloadEmpty"
        case .topicDisallowed: "TopicDisallowed"
        case .featureNotEnabled: "FeatureNotEnabled"
        case .missingChannelId: "MissingChannelId"
        case .badChannelId: "BadChannelId"
        case .channelNotRegistered: "ChannelNotRegistered"
        case .badRequestParams: "BadRequestParams"
        case .badRequestPayload: "BadRequestPayload"
        case .missingPushType: "MissingPushType"
        case .cannotCreateChannelConfig: "CannotCreateChannelConfig"
        case .topicMismatch: "TopicMismatch"
        case .badCertificate: "BadCertificate"
        case .badCertificateEnvironment: "BadCertificateEnvironment"
        case .expiredProviderToken: "ExpiredProviderToken"
        case .forbidden: "Forbidden"
        case .invalidProviderToken: "InvalidProviderToken"
        case .missingProviderToken: "MissingProviderToken"
        case .unrelatedKeyIdInToken: "UnrelatedKeyIdInToken"
        case .badEnvironmentKeyIdInToken: "BadEnvironmentKeyIdInToken"
        case .badPath: "BadPath"
        case .methodNotAllowed: "MethodNotAllowed"
        case .expiredToken: "ExpiredToken"
        case .unregistered: "Unregistered"
        case .payloadTooLarge: "PayloadTooLarge"
        case .tooManyProviderTokenUpdates: "TooManyProviderTokenUpdates"
        case .tooManyRequests: "TooManyRequests"
        case .internalServerError: "InternalServerError"
        case .serviceUnavailable: "ServiceUnavailable"
        case .shutdown: "Shutdown"
        case .unknown(let name): name
        }
    }

    /// The HTTP status APNs answers this reason with.
    public var status: Int {
        switch self {
        case .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic,
             .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
             .missingTopic, .payloadEmpty, .topicDisallowed,
             .featureNotEnabled, .missingChannelId, .badChannelId, .channelNotRegistered, .badRequestParams, .badRequestPayload,
             .missingPushType, .cannotCreateChannelConfig:
            400
        case .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden, .invalidProviderToken,
             .missingProviderToken, .unrelatedKeyIdInToken, .badEnvironmentKeyIdInToken, .topicMismatch:
            403
        case .badPath: 404
        case .methodNotAllowed: 405
        case .expiredToken, .unregistered: 410
        case .payloadTooLarge: 413
        case .tooManyProviderTokenUpdates, .tooManyRequests: 429
        case .internalServerError: 500
        case .serviceUnavailable, .shutdown: 503
        case .unknown: 400
        }
    }
}
