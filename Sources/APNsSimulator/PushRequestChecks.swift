import APNs
import Foundation
import Vocabulary

/// One HTTP/2 request as the simulator received it, before any check.
public struct IncomingPushRequest: Sendable {
    public var method: String
    public var path: String
    /// Regular (non-pseudo) headers in arrival order, lowercase names, duplicates kept.
    public var headers: [(name: String, value: String)]
    public var body: Data

    public init(method: String = "POST", path: String, headers: [(name: String, value: String)], body: Data) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
    }

    /// The first value of `name`.
    public func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }

    /// The device token from the path, whatever its format.
    public var pathDeviceToken: String? {
        guard path.hasPrefix(PushRequestChecks.devicePathPrefix) else { return nil }
        let token = path.dropFirst(PushRequestChecks.devicePathPrefix.count)
        return token.isEmpty ? nil : String(token)
    }
}

/// Why a request was refused, as APNs would say it.
public struct PushRejection: Error, Hashable, Sendable {
    public var status: Int
    public var reason: APNsReason
    /// A human explanation, for reasons that APNs itself does not name (`BadPayload`).
    public var detail: String?
    /// With 410: since when the device token is no longer valid.
    public var unregisteredSince: Date?

    public init(_ reason: APNsReason, status: Int? = nil, detail: String? = nil, unregisteredSince: Date? = nil) {
        self.status = status ?? reason.status
        self.reason = reason
        self.detail = detail
        self.unregisteredSince = unregisteredSince
    }

    /// Apple documents no reason for a body that is not a JSON object (or a Live Activity
    /// payload missing its fields); real APNs may accept it and the phone drops it. The
    /// simulator refuses it under this name so that a client's bug shows up in tests.
    public static func badPayload(_ detail: String) -> PushRejection {
        PushRejection(.unknown("BadPayload"), status: 400, detail: detail)
    }

    /// `{"reason": …}`, with `"timestamp"` (ms since 1970) for 410 and `"detail"` when there is one.
    public var responseBody: Data {
        struct Body: Encodable {
            var reason: String
            var timestamp: Int64?
            var detail: String?
        }
        let body = Body(reason: reason.description,
                        timestamp: unregisteredSince.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) },
                        detail: detail)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(body)) ?? Data(#"{"reason":"InternalServerError"}"#.utf8)
    }
}

/// A request that passed every check.
public struct ValidPush: Hashable, Sendable {
    /// As written in the path (case kept).
    public var deviceToken: String
    public var pushType: PushType
    public var topic: String
    public var bundleID: String
    /// 10 when the request had no `apns-priority`, as APNs assumes.
    public var priority: Int
    public var expiration: Int?
    /// The request's `apns-id`, if it sent one.
    public var apnsID: String?
    public var collapseID: String?
    public var provider: ProviderTokenClaims
    /// A push-to-start's `input-push-channel`: the broadcast channel the new activity listens on.
    public var inputPushChannel: String?
}

public enum PushVerdict: Hashable, Sendable {
    case accepted(ValidPush)
    case rejected(PushRejection)
}

/// What the checks need to know beyond the request: trusted keys, allowed apps,
/// device tokens that are no longer valid.
public struct PushRequestRules: Sendable {
    public var providerKeys: [String: RegisteredProviderKey]
    /// nil: any bundle id.
    public var bundleIDs: Set<String>?
    /// Lowercased device token → since when it is unregistered.
    public var unregisteredTokens: [String: Date]
    /// Apps whose broadcast capability is off (FeatureNotEnabled).
    public var broadcastDisabledBundleIDs: Set<String> = []

    public init(providerKeys: [RegisteredProviderKey] = [], bundleIDs: Set<String>? = nil, unregisteredTokens: [String: Date] = [:]) {
        self.providerKeys = Dictionary(providerKeys.map { ($0.keyID, $0) }, uniquingKeysWith: { _, newer in newer })
        self.bundleIDs = bundleIDs
        self.unregisteredTokens = Dictionary(unregisteredTokens.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { $1 })
    }
}

/// APNs's request checks as one pure function: the network handlers only adapt to it,
/// and tests call it directly. Checks run in the order APNs applies them, so a request
/// with several faults gets the reason APNs would give first.
public enum PushRequestChecks {
    static let devicePathPrefix = "/3/device/"
    static let maximumCollapseIDBytes = 64

    /// The suffixes a topic may carry, longest first so `.voip-ptt` wins over `.voip`.
    private static let topicSuffixes = Set(PushType.allCases.map(\.topicSuffix).filter { !$0.isEmpty })
        .sorted { $0.count > $1.count }

    public static func verdict(
        for request: IncomingPushRequest, rules: PushRequestRules, connection: inout ConnectionTokenState, now: Date
    ) -> PushVerdict {
        do throws(PushRejection) {
            return .accepted(try check(request, rules: rules, connection: &connection, now: now))
        } catch {
            return .rejected(error)
        }
    }

    private static func check(
        _ request: IncomingPushRequest, rules: PushRequestRules, connection: inout ConnectionTokenState, now: Date
    ) throws(PushRejection) -> ValidPush {
        guard request.method == "POST" else { throw PushRejection(.methodNotAllowed) }
        let deviceToken = try checkPath(request.path)
        try checkUniqueHeaders(request.headers)
        let provider = try ProviderTokenCheck.check(authorization: request.header("authorization"), keys: rules.providerKeys,
                                                    connection: &connection, now: now)

        guard let pushTypeName = request.header("apns-push-type"), let pushType = PushType(rawValue: pushTypeName) else {
            // APNs still defaults a missing push type to `alert` for old iOS clients; the
            // simulator is stricter because Live Activities and Push To Talk need it.
            throw PushRejection(.invalidPushType)
        }
        let (topic, bundleID) = try checkTopic(request.header("apns-topic"), pushType: pushType, rules: rules)
        let priority = try checkPriority(request.header("apns-priority"), pushType: pushType)
        let expiration = try checkExpiration(request.header("apns-expiration"))
        let apnsID = request.header("apns-id")
        if let apnsID, !isCanonicalUUID(apnsID) { throw PushRejection(.badMessageId) }
        let collapseID = request.header("apns-collapse-id")
        if let collapseID, collapseID.utf8.count > maximumCollapseIDBytes { throw PushRejection(.badCollapseId) }

        let inputPushChannel = try checkPayload(request.body, pushType: pushType)
        if let since = rules.unregisteredTokens[deviceToken.lowercased()] {
            throw PushRejection(.unregistered, unregisteredSince: since)
        }
        return ValidPush(deviceToken: deviceToken, pushType: pushType, topic: topic, bundleID: bundleID, priority: priority,
                         expiration: expiration, apnsID: apnsID, collapseID: collapseID, provider: provider,
                         inputPushChannel: inputPushChannel)
    }

    private static func checkPath(_ path: String) throws(PushRejection) -> String {
        if path == "/3/device" || path == devicePathPrefix { throw PushRejection(.missingDeviceToken) }
        guard path.hasPrefix(devicePathPrefix) else { throw PushRejection(.badPath) }
        let token = path.dropFirst(devicePathPrefix.count)
        guard !token.contains("/") else { throw PushRejection(.badPath) }
        guard PushToken.isWellFormed(String(token)) else { throw PushRejection(.badDeviceToken) }
        return String(token)
    }

    static func checkUniqueHeaders(_ headers: [(name: String, value: String)]) throws(PushRejection) {
        var seen = Set<String>()
        for header in headers where !seen.insert(header.name).inserted {
            throw PushRejection(.duplicateHeaders)
        }
    }

    private static func checkTopic(_ topic: String?, pushType: PushType, rules: PushRequestRules)
        throws(PushRejection) -> (topic: String, bundleID: String)
    {
        guard let topic, !topic.isEmpty else { throw PushRejection(.missingTopic) }
        let suffix = topicSuffixes.first { topic.hasSuffix($0) && topic.count > $0.count } ?? ""
        let bundleID = String(topic.dropLast(suffix.count))
        if let allowed = rules.bundleIDs, !allowed.contains(bundleID) { throw PushRejection(.topicDisallowed) }
        // Real APNs knows which app a device token belongs to; the simulator can only
        // tell that the topic is not the kind this push type is delivered on.
        guard suffix == pushType.topicSuffix else { throw PushRejection(.deviceTokenNotForTopic) }
        return (topic, bundleID)
    }

    private static func checkPriority(_ value: String?, pushType: PushType) throws(PushRejection) -> Int {
        guard let value else { return 10 }
        let allowed: Set<Int> = switch pushType {
        case .liveactivity: [5, 10]
        case .pushtotalk: [10]
        default: [1, 5, 10]
        }
        guard let priority = decimalInteger(value), allowed.contains(priority) else { throw PushRejection(.badPriority) }
        return priority
    }

    private static func checkExpiration(_ value: String?) throws(PushRejection) -> Int? {
        guard let value else { return nil }
        guard let expiration = decimalInteger(value) else { throw PushRejection(.badExpirationDate) }
        return expiration
    }

    /// Returns a push-to-start's `input-push-channel`, if it names one.
    private static func checkPayload(_ body: Data, pushType: PushType) throws(PushRejection) -> String? {
        let payload = try jsonObject(body, limit: pushType.payloadLimit)
        return pushType == .liveactivity ? try LiveActivityPayloadCheck.check(payload) : nil
    }

    /// A body that is not empty, within `limit`, and a JSON object.
    static func jsonObject(_ body: Data, limit: Int) throws(PushRejection) -> JSONValue {
        guard !body.isEmpty else { throw PushRejection(.payloadEmpty) }
        guard body.count <= limit else { throw PushRejection(.payloadTooLarge) }
        let payload: JSONValue
        do {
            payload = try JSONValue.parse(body)
        } catch {
            throw .badPayload("the body is not valid JSON: \(error)")
        }
        guard case .object = payload else { throw .badPayload("the body must be a JSON object, not \(payload.kindName)") }
        return payload
    }

    /// Digits only: `Int("+5")` would accept a sign APNs does not.
    static func decimalInteger(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int(text)
    }

    /// 8-4-4-4-12 hex digits, either case.
    static func isCanonicalUUID(_ text: String) -> Bool {
        text.utf8.count == 36 && UUID(uuidString: text) != nil
    }
}
