import Foundation
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers
import Store

/// The server's request context: Hummingbird's, and the address of the peer
/// that sent the request (a client, or a proxy in front of the server).
public struct RangersRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public let peerAddress: String?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peerAddress = source.channel.remoteAddress?.ipAddress
    }
}

/// How many sign-ups and failed authentications one client address may make
/// per minute, and which proxies may say who the client is.
public struct AbuseLimits: Hashable, Sendable {
    public var signUpsPerMinute: Int
    public var failedAuthenticationsPerMinute: Int
    /// Addresses of the proxies in front of the server (a load balancer): only
    /// from them is `X-Forwarded-For` believed; from anyone else it is ignored.
    public var trustedProxies: Set<String>

    public static let window = AttemptWindow(seconds: 60)

    public init(signUpsPerMinute: Int = ServeSettings.defaultSignUpsPerMinute,
                failedAuthenticationsPerMinute: Int = ServeSettings.defaultFailedAuthenticationsPerMinute,
                trustedProxies: Set<String> = []) {
        self.signUpsPerMinute = signUpsPerMinute
        self.failedAuthenticationsPerMinute = failedAuthenticationsPerMinute
        self.trustedProxies = trustedProxies
    }

    /// The client's address: the peer's, or, when the peer is a trusted proxy,
    /// the last address in `X-Forwarded-For` that is not one of the trusted
    /// proxies (what the nearest untrusted hop said is the client).
    public func clientAddress(peer: String?, forwardedFor: String?) -> String {
        let peer = peer ?? "unknown"
        guard trustedProxies.contains(peer), let forwardedFor else { return peer }
        let hops = forwardedFor.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return hops.last { !trustedProxies.contains($0) } ?? peer
    }
}

/// Sign-ups and failed authentications limited per client address, counted in
/// the store so the limits hold over every node of a cluster: past the limit a
/// sign-up, or any request with a key from an address whose wrong keys passed
/// it, is answered 429 with `Retry-After` until the minute is over, without
/// looking at the key. A node learns of an address over the limit at its first
/// wrong key from there (and keeps it until the minute ends), so a cluster of N
/// nodes takes at most N more guesses a minute from it than the limit.
struct AbuseLimitMiddleware: RouterMiddleware {
    typealias Context = RangersRequestContext
    let limits: AbuseLimits
    let store: any AttemptStore
    let now: @Sendable () -> Date
    /// Addresses refused on this node, until when.
    private let refused = NIOLockedValueBox<[String: Date]>([:])

    init(limits: AbuseLimits, store: any AttemptStore, now: @escaping @Sendable () -> Date) {
        self.limits = limits
        self.store = store
        self.now = now
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let client = limits.clientAddress(peer: context.peerAddress, forwardedFor: request.headers[.xForwardedFor])
        if request.method == .post, request.uri.path == "/v1/players" {
            let count = try await store.countAttempt("signup|" + client, window: AbuseLimits.window, at: now())
            guard count <= limits.signUpsPerMinute else {
                throw tooMany("sign-ups from your address: at most \(limits.signUpsPerMinute) a minute")
            }
        }
        guard request.headers[.authorization] != nil else { return try await next(request, context) }
        if let until = refused.withLockedValue({ $0[client] }), until > now() {
            throw tooMany("wrong keys from your address: at most \(limits.failedAuthenticationsPerMinute) a minute")
        }
        do {
            return try await next(request, context)
        } catch let error as APIError where error.status == .unauthorized {
            let count = try await store.countAttempt("auth|" + client, window: AbuseLimits.window, at: now())
            guard count <= limits.failedAuthenticationsPerMinute else {
                let until = Date(timeIntervalSince1970: TimeInterval(AbuseLimits.window.start(of: now()) + AbuseLimits.window.seconds))
                refused.withLockedValue { $0 = $0.filter { $0.value > now() }; $0[client] = until }
                throw tooMany("wrong keys from your address: at most \(limits.failedAuthenticationsPerMinute) a minute")
            }
            throw error
        }
    }

    private func tooMany(_ what: String) -> APIError {
        let seconds = AbuseLimits.window.secondsLeft(at: now())
        var error = APIError(.tooManyRequests, "tooManyRequests", "too many \(what); ask again in \(seconds) s")
        error.headers[.retryAfter] = String(seconds)
        return error
    }
}

extension HTTPField.Name {
    static let xForwardedFor = Self("X-Forwarded-For")!
}
