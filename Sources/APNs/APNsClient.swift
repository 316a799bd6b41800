import Foundation
import Logging
import Metrics
import PushVocabulary

/// Where APNs is: the push host (device pushes and broadcasts) and the channel
/// management host, which Apple runs apart on ports of its own (docs/apns.md).
public enum APNsEnvironment: Hashable, Sendable {
    case sandbox
    case production
    /// Any base URL, e.g. the simulator's `https://127.0.0.1:2197`, and where its
    /// channel management is (nil: at the same URL).
    case custom(String, management: String? = nil)

    public var baseURL: String {
        switch self {
        case .sandbox: "https://api.sandbox.push.apple.com"
        case .production: "https://api.push.apple.com"
        case .custom(let url, _): Self.trimmed(url)
        }
    }

    /// Broadcasts go to the push host (`POST /4/broadcasts/apps/<bundle id>`).
    public var broadcastBaseURL: String { baseURL }

    /// Channel management: its own host and port per environment.
    public var managementBaseURL: String {
        switch self {
        case .sandbox: "https://api-manage-broadcast.sandbox.push.apple.com:2195"
        case .production: "https://api-manage-broadcast.push.apple.com:2196"
        case .custom(let url, let management): Self.trimmed(management ?? url)
        }
    }

    private static func trimmed(_ url: String) -> String { url.hasSuffix("/") ? String(url.dropLast()) : url }
}

/// How often and how patiently to retry what may succeed later.
public struct APNsRetryPolicy: Hashable, Sendable {
    /// Attempts in all, the first included.
    public var maximumAttempts: Int
    public var initialBackoff: Duration
    public var maximumBackoff: Duration

    public init(maximumAttempts: Int = 4, initialBackoff: Duration = .milliseconds(200), maximumBackoff: Duration = .seconds(10)) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
    }

    /// "Full jitter": a uniform wait in 0…min(cap, initial × 2^retry), so many
    /// senders that failed together do not retry together.
    public func backoff(beforeRetry retry: Int, unit: Double) -> Duration {
        let ceiling = min(maximumBackoff, initialBackoff * (1 << min(retry, 20)))
        return ceiling * max(0, min(unit, 1))
    }
}

/// The result of sending one push, after any retries.
public struct APNsDelivery: Sendable {
    public var outcome: APNsOutcome
    /// The last answer from APNs, if one came.
    public var response: APNsResponse?
    public var attempts: Int

    public init(outcome: APNsOutcome, response: APNsResponse?, attempts: Int) {
        self.outcome = outcome
        self.response = response
        self.attempts = attempts
    }

    /// APNs' answer, read as the client reads it (for a sender that answers as told).
    public init(answer: APNsResponse, attempts: Int = 1) {
        self.init(outcome: APNsOutcome(answer), response: answer, attempts: attempts)
    }
}

/// What sends a push and says what became of it. `APNsClient` is the one that
/// reaches APNs; a test may record pushes instead.
public protocol PushSender: Sendable {
    /// Throws only `APNsRequestError` (before sending) or `CancellationError`;
    /// everything APNs or the network says is in the delivery.
    func send(_ request: APNsRequest) async throws -> APNsDelivery
    /// Where a task that calls `send` runs cheapest, if anywhere in particular.
    var preferredExecutor: (any TaskExecutor)? { get }
}

extension PushSender {
    public var preferredExecutor: (any TaskExecutor)? { nil }
}

/// Sends pushes to APNs over any `APNsTransport`: builds the headers, signs with a
/// cached provider token, classifies every answer, retries what may succeed later.
public final class APNsClient: PushSender {
    public let environment: APNsEnvironment
    // Internal rather than private where the channel requests (APNsClient+Channels) share them.
    let transport: any APNsTransport
    let tokens: ProviderTokenCache
    /// ".../3/device/", made once rather than per push.
    private let devicePath: String
    let apnsIDs = APNsIDSource()
    private let deliveredMetrics: [PushType: DeliveredMetrics]
    let channelMetrics: ChannelMetrics
    let retry: APNsRetryPolicy
    let sleep: @Sendable (Duration) async throws -> Void
    let random: @Sendable () -> Double
    let logger: Logger
    private let metrics: any MetricsFactory

    public init(
        environment: APNsEnvironment, key: APNsSigningKey, transport: any APNsTransport,
        tokenMaximumAge: TimeInterval = 50 * 60, retry: APNsRetryPolicy = APNsRetryPolicy(),
        now: @escaping @Sendable () -> Date = Date.init,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) },
        logger: Logger = Logger(label: "rangers.apns"),
        metrics: any MetricsFactory = MetricsSystem.factory
    ) {
        self.environment = environment
        self.transport = transport
        devicePath = environment.baseURL + "/3/device/"
        tokens = ProviderTokenCache(key: key, maximumAge: tokenMaximumAge, now: now)
        self.retry = retry
        self.sleep = sleep
        self.random = random
        self.logger = logger
        self.metrics = metrics
        deliveredMetrics = Self.deliveredMetrics(factory: metrics)
        channelMetrics = ChannelMetrics(factory: metrics)
    }

    /// How many provider tokens were signed so far (they should be few).
    public var providerTokensIssued: Int { tokens.tokensIssued }

    /// Sends `request`; throws only `APNsRequestError` (before sending) or
    /// `CancellationError`. Everything APNs or the network says is in the delivery.
    public func send(_ request: APNsRequest) async throws -> APNsDelivery {
        try request.validate()
        let apnsIDText = APNsIDSource.lowercasedText(request.apnsID ?? apnsIDs.next())
        let delivery = try await withRetries { authorization, attempts in
            let started = Self.monotonicNanoseconds()
            let outcome: APNsOutcome
            var response: APNsResponse?
            do {
                let http = try await transport.send(httpRequest(request, apnsID: apnsIDText, authorization: authorization))
                response = APNsResponse(http)
                outcome = response!.outcome
            } catch let error as APNsTransportError {
                if error == .shutDown { throw CancellationError() }
                outcome = .retryLater(.unknown(error.description))
            }
            record(request, response: response, nanoseconds: Self.monotonicNanoseconds() - started)
            let end: AttemptEnd = switch outcome {
            case .retryLater: .mayRetry
            case .rejected(.expiredProviderToken): .expiredProviderToken
            default: .final
            }
            return (APNsDelivery(outcome: outcome, response: response, attempts: attempts), end)
        }
        if case .rejected(let reason) = delivery.outcome {
            // Once per push: the request itself is wrong and will not be retried.
            logger.error("APNs rejected a push", metadata: [
                "reason": "\(reason)", "push-type": "\(request.pushType.rawValue)",
                "topic": "\(request.topic)", "apns-id": "\(apnsIDText)",
            ])
        }
        return delivery
    }

    /// How one attempt ended, for `withRetries`.
    enum AttemptEnd {
        /// Done, whatever APNs said.
        case final
        /// May succeed later: tried again after a backoff while the policy allows.
        case mayRetry
        /// Tried once more at once with a renewed provider token.
        case expiredProviderToken
    }

    /// Device pushes' and channel requests' one retry loop: runs `attempt` with the
    /// current provider token (and the attempts made so far, this one included)
    /// until it ends. An ExpiredProviderToken answer renews the token once and is
    /// not counted as an attempt; what may succeed later waits the policy's backoff
    /// and goes again, up to its attempts. Returns the last attempt's answer.
    func withRetries<Answer>(_ attempt: (_ authorization: String, _ attempts: Int) async throws -> (Answer, AttemptEnd))
        async throws -> Answer {
        var attempts = 0
        var refreshedToken = false
        var credential = tokens.credential()
        while true {
            attempts += 1
            let (answer, end) = try await attempt(credential.authorization, attempts)
            switch end {
            case .expiredProviderToken where !refreshedToken:
                refreshedToken = true
                guard let fresh = tokens.refreshCredential(after: credential.token) else { return answer }
                credential = fresh
                attempts -= 1  // a renewed credential is not a retry
            case .mayRetry where attempts < retry.maximumAttempts:
                try await sleep(retry.backoff(beforeRetry: attempts - 1, unit: random()))
            default:
                return answer
            }
        }
    }

    public func shutdown() async { await transport.shutdown() }

    public var preferredExecutor: (any TaskExecutor)? { transport.preferredExecutor }

    func httpRequest(_ request: APNsRequest, apnsID: String, authorization: String) -> APNsHTTPRequest {
        var headers: [(name: String, value: String)] = [
            ("authorization", authorization),
            ("apns-push-type", request.pushType.rawValue),
            ("apns-topic", request.topic.rawValue),
            ("apns-priority", Self.priorityText(request.priority)),
            ("apns-id", apnsID),
            ("content-type", "application/json"),
        ]
        if let expiration = request.expiration { headers.append(("apns-expiration", String(expiration))) }
        if let collapseID = request.collapseID { headers.append(("apns-collapse-id", collapseID)) }
        return APNsHTTPRequest(url: devicePath + request.deviceToken, headers: headers,
                               body: request.payload)
    }

    /// The header value of a valid priority, the same string each time (which
    /// the transport then need not check again), without formatting a number per push.
    static func priorityText(_ priority: Int) -> String {
        switch priority {
        case 5: "5"
        case 10: "10"
        case 1: "1"
        default: String(priority)
        }
    }

    private func record(_ request: APNsRequest, response: APNsResponse?, nanoseconds: Int64) {
        let metrics = deliveredMetrics[request.pushType]
        if response?.status == 200, let metrics, let counter = metrics.counters[request.priority] {
            counter.increment()
            metrics.duration.recordNanoseconds(nanoseconds)
            return
        }
        let status = response.map { String($0.status) } ?? "none"
        // No answer at all means the transport failed before APNs could say why.
        let reason = response?.reason?.description ?? (response == nil ? "transport" : "none")
        Counter(label: "apns_pushes_total", dimensions: [
            ("push_type", request.pushType.rawValue), ("priority", String(request.priority)),
            ("status", status), ("reason", reason),
        ], factory: self.metrics).increment()
        (metrics?.duration ?? Self.durationTimer(request.pushType, factory: self.metrics)).recordNanoseconds(nanoseconds)
    }

    /// The metrics of a delivered push, per push type: made once, since making a
    /// counter and a timer (objects, dimension arrays, strings) for every push was
    /// a share of the sender's CPU. Other answers are rare and made as they come.
    struct DeliveredMetrics {
        /// By priority.
        var counters: [Int: Counter]
        var duration: Metrics.Timer
    }

    static func deliveredMetrics(factory: any MetricsFactory) -> [PushType: DeliveredMetrics] {
        Dictionary(uniqueKeysWithValues: PushType.allCases.map { pushType in
            let counters = Dictionary(uniqueKeysWithValues: [1, 5, 10].map { priority in
                (priority, Counter(label: "apns_pushes_total", dimensions: [
                    ("push_type", pushType.rawValue), ("priority", String(priority)), ("status", "200"), ("reason", "none"),
                ], factory: factory))
            })
            return (pushType, DeliveredMetrics(counters: counters, duration: durationTimer(pushType, factory: factory)))
        })
    }

    static func durationTimer(_ pushType: PushType, factory: any MetricsFactory) -> Metrics.Timer {
        Metrics.Timer(label: "apns_push_duration_seconds", dimensions: [("push_type", pushType.rawValue)], factory: factory)
    }
}

extension APNsClient {
    /// A monotonic clock in nanoseconds: read twice per push, and cheaper than
    /// `ContinuousClock` and `Duration`'s 128-bit arithmetic.
    static func monotonicNanoseconds() -> Int64 { Int64(DispatchTime.now().uptimeNanoseconds) }
}
