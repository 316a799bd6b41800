import APNs
import Foundation
import Vocabulary

/// Which of the simulator's listeners a request came in on: the push host
/// (device pushes, broadcasts) or the channel management host.
public enum SimulatorEndpoint: String, Sendable {
    case push, management
}

/// A request that passed the checks that need no channel: where it goes, signed
/// by whom, and what it asks. Whether its channel exists is the registry's to say.
public struct ChannelRequest: Hashable, Sendable {
    public enum Operation: Hashable, Sendable {
        case create(MessageStoragePolicy)
        case read(BroadcastChannelID)
        case list
        case delete(BroadcastChannelID)
        case broadcast(ValidBroadcast)
    }

    public var bundleID: String
    public var operation: Operation
    /// `apns-request-id` as sent, if it was.
    public var requestID: String?
    public var provider: ProviderTokenClaims
    /// A broadcast's payload fault. APNs checks the channel before the payload,
    /// so this is answered only once the channel is known to exist.
    public var payloadRejection: PushRejection?
}

/// A broadcast's headers, checked.
public struct ValidBroadcast: Hashable, Sendable {
    public var channelID: BroadcastChannelID
    /// 10 when the request had no `apns-priority`, as APNs assumes.
    public var priority: Int
    /// `apns-expiration`; nil when the request had none.
    public var expiration: Int?
}

public enum ChannelRequestVerdict: Hashable, Sendable {
    case accepted(ChannelRequest)
    case rejected(PushRejection)
}

/// The checks APNs applies to channel management and broadcast requests, in its
/// order: path and method, authentication, the app and its broadcast capability,
/// then the channel (`ChannelRegistry.admit`), then the payload. Reasons and
/// statuses are those of "Handling error responses from APNs"; where Apple names
/// none the simulator answers `BadPayload` with a detail, as for device pushes.
public enum ChannelRequestChecks {
    static let managementPrefix = "/1/apps/"
    static let broadcastPrefix = "/4/broadcasts/apps/"

    /// Every check, the channel's included, against `registry`: what the simulator
    /// answers, without its side effects (tests call this).
    public static func rejection(
        for request: IncomingPushRequest, endpoint: SimulatorEndpoint, rules: PushRequestRules, registry: ChannelRegistry,
        connection: inout ConnectionTokenState, now: Date
    ) -> PushRejection? {
        switch verdict(for: request, endpoint: endpoint, rules: rules, connection: &connection, now: now) {
        case .rejected(let rejection): return rejection
        case .accepted(let checked):
            do throws(PushRejection) {
                try registry.check(checked, now: now)
                return nil
            } catch {
                return error
            }
        }
    }

    /// The checks that need no channel state (run outside the simulator's lock).
    public static func verdict(
        for request: IncomingPushRequest, endpoint: SimulatorEndpoint, rules: PushRequestRules,
        connection: inout ConnectionTokenState, now: Date
    ) -> ChannelRequestVerdict {
        do throws(PushRejection) {
            return .accepted(try check(request, endpoint: endpoint, rules: rules, connection: &connection, now: now))
        } catch {
            return .rejected(error)
        }
    }

    private enum Route { case channels, allChannels, broadcasts }

    private static func check(
        _ request: IncomingPushRequest, endpoint: SimulatorEndpoint, rules: PushRequestRules,
        connection: inout ConnectionTokenState, now: Date
    ) throws(PushRejection) -> ChannelRequest {
        let (route, bundleID) = try checkPath(request.path, endpoint: endpoint)
        let allowed: Set<String> = switch route {
        case .channels: ["POST", "GET", "DELETE"]
        case .allChannels: ["GET"]
        case .broadcasts: ["POST"]
        }
        guard allowed.contains(request.method) else { throw PushRejection(.methodNotAllowed) }
        try PushRequestChecks.checkUniqueHeaders(request.headers)
        let provider = try ProviderTokenCheck.check(authorization: request.header("authorization"), keys: rules.providerKeys,
                                                    connection: &connection, now: now)
        try checkApp(bundleID, rules: rules)
        let requestID = request.header("apns-request-id")
        for name in ["apns-request-id", "apns-id"] {
            if let value = request.header(name), !PushRequestChecks.isCanonicalUUID(value) {
                throw PushRejection(.badMessageId, detail: "\(name) must be a canonical UUID (8-4-4-4-12 hex digits)")
            }
        }

        var payloadRejection: PushRejection?
        let operation: ChannelRequest.Operation
        switch (route, request.method) {
        case (.channels, "POST"):
            operation = .create(try checkChannelConfiguration(request.body))
        case (.channels, "GET"):
            operation = .read(try checkChannelID(request))
        case (.channels, _):
            operation = .delete(try checkChannelID(request))
        case (.allChannels, _):
            operation = .list
        case (.broadcasts, _):
            try checkPushType(request.header("apns-push-type"))
            let channelID = try checkChannelID(request)
            let priority = try checkPriority(request.header("apns-priority"))
            var expiration: Int?
            if let value = request.header("apns-expiration") {
                guard let parsed = PushRequestChecks.decimalInteger(value) else { throw PushRejection(.badExpirationDate) }
                expiration = parsed
            }
            do throws(PushRejection) {
                let payload = try PushRequestChecks.jsonObject(request.body, limit: APNsBroadcastRequest.payloadLimit)
                try LiveActivityPayloadCheck.check(payload, events: LiveActivityPayloadCheck.broadcastEvents)
            } catch {
                payloadRejection = error
            }
            operation = .broadcast(ValidBroadcast(channelID: channelID, priority: priority, expiration: expiration))
        }
        return ChannelRequest(bundleID: bundleID, operation: operation, requestID: requestID, provider: provider,
                              payloadRejection: payloadRejection)
    }

    /// `/1/apps/<bundle id>/channels` and `…/all-channels` on the management host,
    /// `/4/broadcasts/apps/<bundle id>` on the push host; anything else is BadPath.
    private static func checkPath(_ path: String, endpoint: SimulatorEndpoint) throws(PushRejection) -> (Route, String) {
        switch endpoint {
        case .management:
            guard path.hasPrefix(managementPrefix) else { throw PushRejection(.badPath) }
            let parts = path.dropFirst(managementPrefix.count).split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty else { throw PushRejection(.badPath) }
            switch parts[1] {
            case "channels": return (.channels, String(parts[0]))
            case "all-channels": return (.allChannels, String(parts[0]))
            default: throw PushRejection(.badPath)
            }
        case .push:
            guard path.hasPrefix(broadcastPrefix) else { throw PushRejection(.badPath) }
            let bundleID = path.dropFirst(broadcastPrefix.count)
            guard !bundleID.isEmpty, !bundleID.contains("/") else { throw PushRejection(.badPath) }
            return (.broadcasts, String(bundleID))
        }
    }

    /// The path names the bare bundle id of an app the token's team has, with
    /// broadcast capability enabled.
    private static func checkApp(_ bundleID: String, rules: PushRequestRules) throws(PushRejection) {
        if bundleID.hasSuffix(PushType.liveactivity.topicSuffix) {
            throw PushRejection(.topicDisallowed, detail: "the path takes the bundle id without a push type suffix")
        }
        if let apps = rules.bundleIDs, !apps.contains(bundleID) { throw PushRejection(.topicMismatch) }
        if rules.broadcastDisabledBundleIDs.contains(bundleID) { throw PushRejection(.featureNotEnabled) }
    }

    /// A create's body: `{"message-storage-policy": 0|1, "push-type": "LiveActivity"}`.
    private static func checkChannelConfiguration(_ body: Data) throws(PushRejection) -> MessageStoragePolicy {
        guard let parsed = try? JSONValue.parse(body), case .object(let fields) = parsed else {
            throw PushRejection(.badRequestPayload)
        }
        if let unknown = fields.keys.sorted().first(where: { $0 != "message-storage-policy" && $0 != "push-type" }) {
            throw PushRejection(.badRequestParams, detail: "unrecognised attribute '\(unknown)'")
        }
        guard case .integer(let number)? = fields["message-storage-policy"],
              let policy = MessageStoragePolicy(rawValue: Int(truncatingIfNeeded: number))
        else { throw PushRejection(.badRequestParams, detail: "message-storage-policy must be 0 or 1") }
        guard let pushType = fields["push-type"] else { throw PushRejection(.missingPushType) }
        // Apple writes "LiveActivity" in the body and "Liveactivity" in a header: either case.
        guard case .string(let name) = pushType, name.lowercased() == "liveactivity" else { throw PushRejection(.invalidPushType) }
        return policy
    }

    private static func checkPushType(_ value: String?) throws(PushRejection) {
        guard let value else { throw PushRejection(.missingPushType) }
        guard value.lowercased() == PushType.liveactivity.rawValue else { throw PushRejection(.invalidPushType) }
    }

    private static func checkChannelID(_ request: IncomingPushRequest) throws(PushRejection) -> BroadcastChannelID {
        guard let value = request.header("apns-channel-id"), !value.isEmpty else { throw PushRejection(.missingChannelId) }
        guard BroadcastChannelID.isWellFormed(value) else { throw PushRejection(.badChannelId) }
        return BroadcastChannelID(value)
    }

    /// Live Activity priorities; none means 10.
    private static func checkPriority(_ value: String?) throws(PushRejection) -> Int {
        guard let value else { return 10 }
        guard let priority = PushRequestChecks.decimalInteger(value), APNsBroadcastRequest.priorities.contains(priority) else {
            throw PushRejection(.badPriority)
        }
        return priority
    }
}
