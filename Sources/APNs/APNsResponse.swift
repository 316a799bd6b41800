import Foundation

/// What APNs answered, parsed.
public struct APNsResponse: Hashable, Sendable {
    public var status: Int
    public var apnsID: String?
    /// `apns-unique-id`, sandbox only: looks the push up in the Push Notifications Console.
    public var uniqueID: String?
    public var reason: APNsReason?
    /// With 410: since when the token is no longer valid.
    public var invalidSince: Date?

    public init(status: Int, apnsID: String? = nil, uniqueID: String? = nil, reason: APNsReason? = nil, invalidSince: Date? = nil) {
        self.status = status
        self.apnsID = apnsID
        self.uniqueID = uniqueID
        self.reason = reason
        self.invalidSince = invalidSince
    }

    private struct ErrorBody: Decodable {
        var reason: String
        /// Milliseconds since 1970.
        var timestamp: Double?
    }

    public init(_ http: APNsHTTPResponse) {
        status = http.status
        apnsID = http.headers["apns-id"]
        uniqueID = http.headers["apns-unique-id"]
        if http.status != 200, let body = try? JSONDecoder().decode(ErrorBody.self, from: http.body) {
            reason = APNsReason(body.reason)
            invalidSince = body.timestamp.map { Date(timeIntervalSince1970: $0 / 1000) }
        } else if http.status != 200 {
            // No JSON body: keep the status's meaning rather than nothing.
            reason = .unknown("HTTP \(http.status)")
        }
    }

    public var outcome: APNsOutcome { APNsOutcome(self) }
}

/// What the caller should do about an answer.
public enum APNsOutcome: Hashable, Sendable {
    case delivered(apnsID: String?)
    /// Stop sending to this token: BadDeviceToken, Unregistered, ExpiredToken, DeviceTokenNotForTopic.
    case tokenNoLongerValid(APNsReason, since: Date?)
    /// Try again later: 5xx, TooManyRequests, a lost connection, GOAWAY.
    case retryLater(APNsReason)
    /// The request (or the provider's credentials) is wrong; retrying will not help.
    case rejected(APNsReason)

    init(_ response: APNsResponse) {
        let reason = response.reason ?? .unknown("HTTP \(response.status)")
        switch response.status {
        case 200:
            self = .delivered(apnsID: response.apnsID)
        case 410:
            self = .tokenNoLongerValid(reason, since: response.invalidSince)
        case 500...599:
            self = .retryLater(reason)
        default:
            switch reason {
            case .badDeviceToken, .deviceTokenNotForTopic, .unregistered, .expiredToken:
                self = .tokenNoLongerValid(reason, since: response.invalidSince)
            case .tooManyRequests, .idleTimeout:
                self = .retryLater(reason)
            default:
                self = .rejected(reason)
            }
        }
    }
}
