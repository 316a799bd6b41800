import Foundation
import HTTPTypes
import HummingbirdTesting
@testable import Server
import StoreTestSupport
import Testing

/// Sign-ups and wrong keys per client address: 429 with `Retry-After` past the
/// limit, the client's address from `X-Forwarded-For` only when a trusted proxy
/// says it, and the counts shared by every node of a cluster.
@Suite(.closesStores) struct AbuseLimitTests {
    static let limits = AbuseLimits(signUpsPerMinute: 3, failedAuthenticationsPerMinute: 2)

    @Test(arguments: StoreEngine.available) func signUpsPastTheLimitAreRefusedUntilTheMinuteEnds(engine: StoreEngine) async throws {
        let server = try await TestServer(engine: engine, limits: Self.limits)
        try await server.test(.live) { api in
            for index in 0..<3 {
                #expect(try await api.send(.post, "/v1/players", body: #"{"name":"P\#(index)"}"#).status == 201)
            }
            let refused = try await api.send(.post, "/v1/players", body: #"{"name":"P4"}"#)
            #expect(refused.status == 429)
            #expect(refused.json["error"].string == "tooManyRequests")
            let retryAfter = try #require(refused.headers[.retryAfter].flatMap(Int.init))
            #expect((1...60).contains(retryAfter))
        }
    }

    @Test func wrongKeysPastTheLimitRefuseEveryKeyFromThereWithoutLookingAtIt() async throws {
        let server = try await TestServer(limits: Self.limits)
        try await server.test(.live) { api in
            let key = try await api.send(.post, "/v1/players", body: #"{"name":"Ana"}"#).json["apiKey"].string
            for _ in 0..<2 {
                #expect(try await api.send(.get, "/v1/players/me", key: "rk_wrong").status == 401)
            }
            #expect(try await api.send(.get, "/v1/players/me", key: "rk_wrong").status == 429)
            // The right key too, until the minute is over: a guess that happens to be right learns nothing.
            let right = try await api.send(.get, "/v1/players/me", key: key)
            #expect(right.status == 429 && right.headers[.retryAfter] != nil)
            // No key at all is not refused for it.
            #expect(try await api.send(.get, "/healthz").status == 200)
        }
    }

    @Test func theClientAddressIsTheForwardedOneOnlyFromATrustedProxy() {
        let direct = AbuseLimits()
        #expect(direct.clientAddress(peer: "203.0.113.9", forwardedFor: "198.51.100.1") == "203.0.113.9",
                "anyone may send X-Forwarded-For: not believed from a client")
        let behindProxy = AbuseLimits(trustedProxies: ["10.0.0.2", "10.0.0.3"])
        #expect(behindProxy.clientAddress(peer: "10.0.0.2", forwardedFor: "198.51.100.1") == "198.51.100.1")
        #expect(behindProxy.clientAddress(peer: "10.0.0.2", forwardedFor: "6.6.6.6, 198.51.100.1, 10.0.0.3") == "198.51.100.1",
                "the last hop not a trusted proxy: what a client wrote first is not taken")
        #expect(behindProxy.clientAddress(peer: "10.0.0.2", forwardedFor: nil) == "10.0.0.2")
        #expect(behindProxy.clientAddress(peer: "198.51.100.7", forwardedFor: "1.2.3.4") == "198.51.100.7")
    }

    @Test func behindATrustedProxyEachClientHasItsOwnCount() async throws {
        var limits = Self.limits
        limits.trustedProxies = ["127.0.0.1"]
        let server = try await TestServer(limits: limits)
        let one: HTTPFields = [.xForwardedFor: "198.51.100.1"]
        let other: HTTPFields = [.xForwardedFor: "198.51.100.2"]
        try await server.test(.live) { api in
            for index in 0..<3 {
                let reply = try await api.send(.post, "/v1/players", body: #"{"name":"A\#(index)"}"#, headers: one)
                #expect(reply.status == 201)
            }
            let past = try await api.send(.post, "/v1/players", body: #"{"name":"A4"}"#, headers: one)
            #expect(past.status == 429)
            let another = try await api.send(.post, "/v1/players", body: #"{"name":"B1"}"#, headers: other)
            #expect(another.status == 201, "another client behind the same proxy has its own count")
        }
    }

    /// Two nodes on one PostgreSQL: sign-ups sent to either count together.
    @Test(.enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.skipped)))
    func theLimitsHoldOverEveryNode() async throws {
        let first = try await TestServer(engine: .postgres, limits: Self.limits)
        // The same database for both.
        let second = try await TestServer(engine: .postgres, databaseURL: first.configuration.databaseURL, limits: Self.limits)
        try await first.test(.live) { (api: API) async throws in
            for index in 0..<2 { #expect(try await api.send(.post, "/v1/players", body: #"{"name":"N\#(index)"}"#).status == 201) }
        }
        try await second.test(.live) { (api: API) async throws in
            #expect(try await api.send(.post, "/v1/players", body: #"{"name":"N2"}"#).status == 201)
            #expect(try await api.send(.post, "/v1/players", body: #"{"name":"N3"}"#).status == 429, "the first node's count holds here")
        }
    }
}
