@testable import APNs
import Foundation
import MetricsTestKit
import Testing

@Suite struct APNsClientTests {
    let clock = TestClock()
    let sleeps = RecordedSleeps()

    func client(_ transport: ScriptedTransport, retry: APNsRetryPolicy = APNsRetryPolicy(), metrics: TestMetrics = TestMetrics()) -> APNsClient {
        APNsClient(environment: .custom("https://127.0.0.1:2197/"), key: Keys.signing, transport: transport, retry: retry,
                   now: { [clock] in clock.now }, sleep: { [sleeps] in sleeps.sleep($0) }, random: { 1 }, metrics: metrics)
    }

    var liveActivity: APNsRequest {
        var request = APNsRequest.liveActivity(deviceToken: token64, bundleID: "com.example.app", priority: 10,
                                               expiration: 1_767_230_000, payload: Data(#"{"aps":{}}"#.utf8))
        request.apnsID = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        return request
    }

    @Test func sendsTheHeadersAPNsExpects() async throws {
        let transport = ScriptedTransport([.http(200, ["apns-id": "e621e1f8-c36c-495a-93fc-0c247a3e6e5f"])])
        let delivery = try await client(transport).send(liveActivity)
        #expect(delivery.outcome == .delivered(apnsID: "e621e1f8-c36c-495a-93fc-0c247a3e6e5f"))
        #expect(delivery.attempts == 1)
        let sent = try #require(transport.sentRequests.first)
        #expect(sent.url == "https://127.0.0.1:2197/3/device/\(token64)")
        let headers = Dictionary(uniqueKeysWithValues: sent.headers.map { ($0.name, $0.value) })
        #expect(headers["apns-push-type"] == "liveactivity")
        #expect(headers["apns-topic"] == "com.example.app.push-type.liveactivity")
        #expect(headers["apns-priority"] == "10")
        #expect(headers["apns-expiration"] == "1767230000")
        #expect(headers["apns-id"] == "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")
        #expect(headers["authorization"]?.hasPrefix("bearer ey") == true)
        #expect(sent.body == Data(#"{"aps":{}}"#.utf8))
    }

    @Test func serviceUnavailableIsRetriedWithBackoffThenDelivered() async throws {
        let transport = ScriptedTransport([
            .http(503, [:], #"{"reason":"ServiceUnavailable"}"#), .failure(.connectionLost("reset")), .http(200),
        ])
        let delivery = try await client(transport).send(liveActivity)
        #expect(delivery.outcome == .delivered(apnsID: nil))
        #expect(delivery.attempts == 3)
        // Full jitter with the random draw at its top: 200 ms, then 400 ms.
        #expect(sleeps.all == [.milliseconds(200), .milliseconds(400)])
        // The same apns-id on every attempt, so APNs can tell it is one push.
        let ids = Set(transport.sentRequests.compactMap { $0.headers.first { $0.name == "apns-id" }?.value })
        #expect(ids.count == 1)
    }

    @Test func retriesAreBounded() async throws {
        let transport = ScriptedTransport([.http(500, [:], #"{"reason":"InternalServerError"}"#)])
        let delivery = try await client(transport, retry: APNsRetryPolicy(maximumAttempts: 3)).send(liveActivity)
        #expect(delivery.outcome == .retryLater(.internalServerError))
        #expect(delivery.attempts == 3)
        #expect(transport.sentRequests.count == 3)
    }

    @Test(arguments: ["BadPriority", "PayloadTooLarge", "BadDeviceToken", "Forbidden", "TopicDisallowed"])
    func badRequestsAreNotRetried(reason: String) async throws {
        let status = APNsReason(reason).status
        let transport = ScriptedTransport([.http(status, [:], #"{"reason":"\#(reason)"}"#)])
        let delivery = try await client(transport).send(liveActivity)
        #expect(delivery.attempts == 1)
        #expect(transport.sentRequests.count == 1)
        #expect(sleeps.all.isEmpty)
    }

    @Test func unregisteredTokenIsReportedWithItsTimestamp() async throws {
        let transport = ScriptedTransport([.http(410, [:], #"{"reason":"Unregistered","timestamp":1767000000000}"#)])
        let delivery = try await client(transport).send(liveActivity)
        #expect(delivery.outcome == .tokenNoLongerValid(.unregistered, since: Date(timeIntervalSince1970: 1_767_000_000)))
        #expect(delivery.attempts == 1)
    }

    @Test func providerTokenIsReusedAndRenewedOnExpiredProviderToken() async throws {
        let transport = ScriptedTransport([.http(200), .http(200), .http(403, [:], #"{"reason":"ExpiredProviderToken"}"#), .http(200)])
        let apns = client(transport)
        _ = try await apns.send(liveActivity)
        _ = try await apns.send(liveActivity)
        clock.advance(minutes: 30)
        let delivery = try await apns.send(liveActivity)
        #expect(delivery.outcome == .delivered(apnsID: nil))
        let tokens = transport.sentRequests.map { $0.headers.first { $0.name == "authorization" }!.value }
        #expect(tokens[0] == tokens[1])
        #expect(tokens[2] == tokens[0])
        #expect(tokens[3] != tokens[2])
        #expect(apns.providerTokensIssued == 2)
    }

    @Test func expiredProviderTokenOnAFreshTokenIsNotRefreshedAgain() async throws {
        let transport = ScriptedTransport([.http(403, [:], #"{"reason":"ExpiredProviderToken"}"#)])
        let apns = client(transport)
        let delivery = try await apns.send(liveActivity)
        #expect(delivery.outcome == .rejected(.expiredProviderToken))
        #expect(transport.sentRequests.count == 1)
        #expect(apns.providerTokensIssued == 1)
    }

    @Test func invalidRequestThrowsBeforeAnythingIsSent() async {
        let transport = ScriptedTransport([.http(200)])
        var request = liveActivity
        request.deviceToken = "not-hex"
        await #expect(throws: APNsRequestError.self) { try await client(transport).send(request) }
        #expect(transport.sentRequests.isEmpty)
    }

    @Test func metricsCountPushesByTypePriorityStatusAndReason() async throws {
        let metrics = TestMetrics()
        let transport = ScriptedTransport([.http(503, [:], #"{"reason":"ServiceUnavailable"}"#), .http(200)])
        _ = try await client(transport, metrics: metrics).send(liveActivity)
        #expect(metrics.counterTotal(label: "apns_pushes_total", dimensions: [
            ("push_type", "liveactivity"), ("priority", "10"), ("status", "503"), ("reason", "ServiceUnavailable"),
        ]) == 1)
        #expect(metrics.counterTotal(label: "apns_pushes_total", dimensions: [
            ("push_type", "liveactivity"), ("priority", "10"), ("status", "200"), ("reason", "none"),
        ]) == 1)
        #expect(try metrics.expectTimer("apns_push_duration_seconds", [("push_type", "liveactivity")]).values.count == 2)
    }
}
