import Foundation
import Logging
import Metrics
import PushVocabulary

/// What manages broadcast channels and broadcasts to them, and says what became
/// of each request. `APNsClient` is the one that reaches APNs; a test may record
/// instead (as `PushSender` is to device pushes). Methods throw only
/// `APNsChannelRequestError` (before sending) or `CancellationError`.
public protocol BroadcastChannelSender: Sendable {
    func createChannel(bundleID: String, storagePolicy: MessageStoragePolicy,
                       requestID: UUID?) async throws -> APNsChannelAnswer<BroadcastChannelID>
    func channelConfiguration(_ channel: BroadcastChannelID, bundleID: String,
                              requestID: UUID?) async throws -> APNsChannelAnswer<BroadcastChannelConfiguration>
    func allChannels(bundleID: String, requestID: UUID?) async throws -> APNsChannelAnswer<[BroadcastChannelID]>
    func deleteChannel(_ channel: BroadcastChannelID, bundleID: String, requestID: UUID?) async throws -> APNsChannelAnswer<Void>
    func broadcast(_ request: APNsBroadcastRequest) async throws -> APNsChannelAnswer<Void>
}

extension APNsClient: BroadcastChannelSender {}

/// Broadcast channels (iOS 18): managing them on the management host and sending
/// one push to everyone subscribed to one. Same transport, same provider token,
/// same retry policy as device pushes; answers classified as `APNsChannelOutcome`.
/// The facts these follow are in docs/apns.md, "Broadcast channels: the facts the code relies on".
extension APNsClient {
    /// Makes a channel (`POST /1/apps/<bundle id>/channels`, 201 with `apns-channel-id`).
    /// Its storage policy is fixed for its life.
    ///
    /// A create that may have reached APNs without an answer (a connection lost
    /// or timed out mid-request) is not sent again: a second create would leave
    /// a channel nobody knows of. Its outcome is `.retryLater`; listing the
    /// app's channels shows whether the first one was made.
    public func createChannel(bundleID: String, storagePolicy: MessageStoragePolicy,
                              requestID: UUID? = nil) async throws -> APNsChannelAnswer<BroadcastChannelID> {
        try APNsChannelRequestError.check(bundleID: bundleID)
        let body = #"{"message-storage-policy":\#(storagePolicy.rawValue),"push-type":"\#(BroadcastChannelConfiguration.liveActivityPushType)"}"#
        return try await exchange(.create, method: .post, url: channelsURL(bundleID), headers: [("content-type", "application/json")],
                                  body: Data(body.utf8), requestID: requestID, resendsAfterUncertainFailure: false,
                                  unreadable: "a success without a well-formed apns-channel-id") { response in
            response.channelID.flatMap { $0.isWellFormed ? $0 : nil }
        }
    }

    /// Reads a channel's configuration (`GET /1/apps/<bundle id>/channels`).
    public func channelConfiguration(_ channel: BroadcastChannelID, bundleID: String,
                                     requestID: UUID? = nil) async throws -> APNsChannelAnswer<BroadcastChannelConfiguration> {
        try APNsChannelRequestError.check(bundleID: bundleID)
        try APNsChannelRequestError.check(channel)
        return try await exchange(.read, method: .get, url: channelsURL(bundleID), headers: [("apns-channel-id", channel.rawValue)],
                                  requestID: requestID, unreadable: "an unreadable channel configuration") { response in
            struct Body: Decodable {
                var messageStoragePolicy: Int
                var pushType: String
                enum CodingKeys: String, CodingKey {
                    case messageStoragePolicy = "message-storage-policy", pushType = "push-type"
                }
            }
            guard let body = try? JSONDecoder().decode(Body.self, from: response.body),
                  let policy = MessageStoragePolicy(rawValue: body.messageStoragePolicy)
            else { return nil }
            return BroadcastChannelConfiguration(storagePolicy: policy, pushType: body.pushType)
        }
    }

    /// Every channel the app has in this environment (`GET /1/apps/<bundle id>/all-channels`).
    public func allChannels(bundleID: String, requestID: UUID? = nil) async throws -> APNsChannelAnswer<[BroadcastChannelID]> {
        try APNsChannelRequestError.check(bundleID: bundleID)
        let url = environment.managementBaseURL + "/1/apps/" + bundleID + "/all-channels"
        return try await exchange(.list, method: .get, url: url, headers: [], requestID: requestID,
                                  unreadable: "an unreadable list of channels") { response in
            struct Body: Decodable { var channels: [String] }
            return (try? JSONDecoder().decode(Body.self, from: response.body))?.channels.map { BroadcastChannelID($0) }
        }
    }

    /// Deletes a channel (`DELETE /1/apps/<bundle id>/channels`, 204). Irreversible;
    /// APNs may still deliver messages it stored. A channel already gone answers
    /// `.channelGone(.channelNotRegistered)`.
    public func deleteChannel(_ channel: BroadcastChannelID, bundleID: String,
                              requestID: UUID? = nil) async throws -> APNsChannelAnswer<Void> {
        try APNsChannelRequestError.check(bundleID: bundleID)
        try APNsChannelRequestError.check(channel)
        return try await exchange(.delete, method: .delete, url: channelsURL(bundleID), headers: [("apns-channel-id", channel.rawValue)],
                                  requestID: requestID) { _ in () }
    }

    /// Sends one update or end to every device subscribed to the channel
    /// (`POST /4/broadcasts/apps/<bundle id>`, 200). Retried like a device push,
    /// with the same `apns-request-id` on every attempt.
    public func broadcast(_ request: APNsBroadcastRequest) async throws -> APNsChannelAnswer<Void> {
        try request.validate()
        var headers: [(name: String, value: String)] = [
            ("apns-push-type", PushType.liveactivity.rawValue),
            ("apns-channel-id", request.channelID.rawValue),
            ("apns-priority", String(request.priority)),
            ("content-type", "application/json"),
        ]
        if let expiration = request.expiration { headers.append(("apns-expiration", String(expiration))) }
        let url = environment.broadcastBaseURL + "/4/broadcasts/apps/" + request.bundleID
        return try await exchange(.broadcast, priority: request.priority, method: .post, url: url, headers: headers,
                                  body: request.payload, requestID: request.requestID) { _ in () }
    }

    private func channelsURL(_ bundleID: String) -> String {
        environment.managementBaseURL + "/1/apps/" + bundleID + "/channels"
    }

    /// One channel request to its end: signs it, sends it, classifies the answer,
    /// renews the provider token once on ExpiredProviderToken, and retries what
    /// may succeed later with the policy's backoff.
    private func exchange<Value>(
        _ operation: ChannelOperation, priority: Int? = nil, method: APNsHTTPRequest.Method, url: String,
        headers: [(name: String, value: String)], body: Data? = nil, requestID: UUID?, resendsAfterUncertainFailure: Bool = true,
        unreadable: String = "", value: (APNsChannelResponse) -> Value?
    ) async throws -> APNsChannelAnswer<Value> {
        let requestIDText = APNsIDSource.lowercasedText(requestID ?? apnsIDs.next())
        let answer = try await withRetries { authorization, attempts in
            let started = Self.monotonicNanoseconds()
            var outcome: APNsChannelOutcome
            var response: APNsChannelResponse?
            var result: Value?
            do {
                let http = try await transport.send(APNsHTTPRequest(
                    method: method, url: url,
                    headers: [("authorization", authorization), ("apns-request-id", requestIDText)] + headers, body: body))
                let parsed = APNsChannelResponse(http)
                response = parsed
                outcome = parsed.outcome
                if outcome == .succeeded {
                    // A success whose answer cannot be read is not retried: a create may have made a channel.
                    result = value(parsed)
                    if result == nil { outcome = .rejected(.unknown(unreadable)) }
                }
            } catch let error as APNsTransportError {
                if error == .shutDown { throw CancellationError() }
                outcome = .retryLater(.unknown(error.description))
                if !resendsAfterUncertainFailure, error.mayHaveReachedAPNs {
                    channelMetrics.record(operation, priority: priority, response: nil, nanoseconds: Self.monotonicNanoseconds() - started)
                    return (APNsChannelAnswer<Value>(outcome: outcome, value: nil, response: nil, attempts: attempts), .final)
                }
            }
            channelMetrics.record(operation, priority: priority, response: response, nanoseconds: Self.monotonicNanoseconds() - started)
            let end: AttemptEnd = switch outcome {
            case .retryLater: .mayRetry
            case .rejected(.expiredProviderToken): .expiredProviderToken
            default: .final
            }
            return (APNsChannelAnswer(outcome: outcome, value: result, response: response, attempts: attempts), end)
        }
        if case .rejected(let reason) = answer.outcome {
            logger.error("APNs rejected a channel request", metadata: [
                "reason": "\(reason)", "operation": "\(operation.rawValue)", "apns-request-id": "\(requestIDText)",
            ])
        }
        return answer
    }
}

extension APNsTransportError {
    /// Whether the request may have been taken by APNs although no answer came:
    /// true unless the failure happened before anything was sent.
    var mayHaveReachedAPNs: Bool {
        switch self {
        case .cannotConnect, .tls, .shutDown: false
        case .connectionLost, .goAway, .timedOut: true
        }
    }
}

/// What a channel request is, for metrics and logs.
enum ChannelOperation: String, CaseIterable, Sendable {
    case create, read, list, delete, broadcast
}

/// `apns_broadcasts_total{priority,status,reason}` and `apns_channel_requests_total{operation,status,reason}`,
/// with their durations. The counters of an accepted broadcast are made once, as a
/// delivered push's are: a busy server broadcasts every tick.
struct ChannelMetrics: Sendable {
    private let acceptedBroadcasts: [Int: Counter]
    private let broadcastDuration: Metrics.Timer
    private let requestDuration: Metrics.Timer
    private let factory: any MetricsFactory

    init(factory: any MetricsFactory) {
        self.factory = factory
        acceptedBroadcasts = Dictionary(uniqueKeysWithValues: APNsBroadcastRequest.priorities.map { priority in
            (priority, Counter(label: "apns_broadcasts_total",
                               dimensions: [("priority", String(priority)), ("status", "200"), ("reason", "none")], factory: factory))
        })
        broadcastDuration = Metrics.Timer(label: "apns_broadcast_duration_seconds", factory: factory)
        requestDuration = Metrics.Timer(label: "apns_channel_request_duration_seconds", factory: factory)
    }

    func record(_ operation: ChannelOperation, priority: Int?, response: APNsChannelResponse?, nanoseconds: Int64) {
        let status = response.map { String($0.status) } ?? "none"
        let reason = response?.reason?.description ?? (response == nil ? "transport" : "none")
        if operation == .broadcast {
            broadcastDuration.recordNanoseconds(nanoseconds)
            if response?.status == 200, let priority, let counter = acceptedBroadcasts[priority] {
                counter.increment()
                return
            }
            Counter(label: "apns_broadcasts_total", dimensions: [
                ("priority", priority.map(String.init) ?? "none"), ("status", status), ("reason", reason),
            ], factory: factory).increment()
            return
        }
        requestDuration.recordNanoseconds(nanoseconds)
        Counter(label: "apns_channel_requests_total", dimensions: [
            ("operation", operation.rawValue), ("status", status), ("reason", reason),
        ], factory: factory).increment()
    }
}
