import ConsoleView
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

/// Sign-ups and failed authentications limited per client address. Sign-ups
/// are counted in the store when they succeed, so the limit holds over every node
/// of a cluster; past it a sign-up is answered 429 with `Retry-After` until the
/// minute is over. Wrong keys are counted by each node in memory (a refused
/// request writes nothing); past the limit any request with a key from that
/// address is answered 429 until the minute ends, without the key being looked
/// at, so a cluster of N nodes takes at most N times the limit a minute from one
/// address, however its requests are spread.
struct AbuseLimitMiddleware: RouterMiddleware {
    typealias Context = RangersRequestContext
    let limits: AbuseLimits
    let store: any AttemptStore
    let now: @Sendable () -> Date
    /// Wrong keys per address on this node: the window they fall in and how many.
    private let wrongKeys = NIOLockedValueBox<[String: (window: Int, count: Int)]>([:])

    init(limits: AbuseLimits, store: any AttemptStore, now: @escaping @Sendable () -> Date) {
        self.limits = limits
        self.store = store
        self.now = now
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let client = limits.clientAddress(peer: context.peerAddress, forwardedFor: request.headers[.xForwardedFor])
        if request.method == .post, request.uri.path == "/v1/players" {
            let key = "signup|" + client
            guard try await store.attempts(key, window: AbuseLimits.window, at: now()) < limits.signUpsPerMinute else {
                throw tooMany("sign-ups from your address: at most \(limits.signUpsPerMinute) a minute")
            }
            let response = try await next(request, context)
            if response.status == .created { _ = try await store.countAttempt(key, window: AbuseLimits.window, at: now()) }
            return response
        }
        // The console's sign-in form presents a key as a bearer header does.
        let presentsKey = request.headers[.authorization] != nil
            || (request.method == .post && request.uri.path == ConsolePaths.signIn)
        guard presentsKey else { return try await next(request, context) }
        let window = AbuseLimits.window.start(of: now())
        guard wrongKeys(of: client, in: window) < limits.failedAuthenticationsPerMinute else {
            let refusal = tooMany("wrong keys from your address: at most \(limits.failedAuthenticationsPerMinute) a minute")
            // The console's form is answered with a page a browser shows, saying the same.
            guard request.uri.path == ConsolePaths.signIn else { throw refusal }
            var page = RangersAPI.refusalPage("Too many \(refusal.message.dropFirst("too many ".count))", status: .tooManyRequests)
            page.headers.append(contentsOf: refusal.headers)
            return page
        }
        do {
            let response = try await next(request, context)
            // The console answers a wrong key with its page, not an error.
            if response.status == .unauthorized { countWrongKey(of: client, in: window) }
            return response
        } catch let error as APIError where error.status == .unauthorized {
            countWrongKey(of: client, in: window)
            throw error
        }
    }

    private func countWrongKey(of client: String, in window: Int) {
        wrongKeys.withLockedValue { counts in
            counts = counts.filter { $0.value.window == window }
            counts[client, default: (window, 0)].count += 1
        }
    }

    private func wrongKeys(of client: String, in window: Int) -> Int {
        wrongKeys.withLockedValue { counts in counts[client].flatMap { $0.window == window ? $0.count : nil } ?? 0 }
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
