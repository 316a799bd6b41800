import APNs
@testable import APNsCurl
import APNsSimulator
import Foundation
import Testing

/// Real pushes over TLS + HTTP/2 to the APNs simulator.
@Suite struct CurlTransportSimulatorTests {
    @Test func untrustedCertificateIsATLSError() async throws {
        let fixture = try await SimulatorFixture.start()
        let transport = try CurlHTTP2Transport()  // system trust store only
        await #expect {
            try await transport.send(APNsHTTPRequest(url: "\(fixture.simulator.baseURL)/3/device/00", headers: [], body: Data()))
        } throws: { error in
            guard case .tls(let detail) = error as? APNsTransportError else { return false }
            return detail.localizedCaseInsensitiveContains("certificate")
        }
        await transport.shutdown()
        #expect(fixture.simulator.acceptedCount == 0)
        try await fixture.shutdown()
    }

    @Test func everyPushTypeIsDelivered() async throws {
        let fixture = try await SimulatorFixture.start()
        let transport = try fixture.transport()
        let client = fixture.client(transport)
        let token = SimulatorFixture.deviceToken(7)
        let requests: [APNsRequest] = [
            .liveActivity(deviceToken: token, bundleID: SimulatorFixture.bundleID, priority: 10,
                          payload: SimulatorFixture.liveActivityPayload),
            .pushToTalk(deviceToken: token, bundleID: SimulatorFixture.bundleID, payload: SimulatorFixture.pushToTalkPayload),
            .alert(deviceToken: token, bundleID: SimulatorFixture.bundleID, payload: SimulatorFixture.alertPayload),
        ]
        for var request in requests {
            let apnsID = UUID()
            request.apnsID = apnsID
            let delivery = try await client.send(request)
            #expect(delivery.outcome == .delivered(apnsID: apnsID.uuidString.lowercased()))
            #expect(delivery.attempts == 1)
        }
        let accepted = fixture.simulator.accepted()
        #expect(accepted.map(\.pushType) == [.liveactivity, .pushtotalk, .alert])
        #expect(accepted.map(\.topic) == requests.map(\.topic.rawValue))
        #expect(accepted.map(\.payload) == requests.map(\.payload))
        #expect(accepted[1].priority == 10 && accepted[1].expiration == 0)
        await client.shutdown()
        try await fixture.shutdown()
    }

    @Test func errorStatusHeadersAndBodyComeThroughRaw() async throws {
        let fixture = try await SimulatorFixture.start()
        let transport = try fixture.transport()
        let token = ProviderTokenCache(key: fixture.key).token()
        let request = APNsHTTPRequest(
            url: "\(fixture.simulator.baseURL)/3/device/not-hex",
            headers: [("authorization", "bearer \(token)"), ("apns-push-type", "alert"),
                      ("apns-topic", SimulatorFixture.bundleID), ("apns-id", "8d1a8f5c-8c58-4d4b-a1a4-3d3f2c1b0a99")],
            body: SimulatorFixture.alertPayload)
        let response = try await transport.send(request)
        #expect(response.status == 400)
        #expect(response.headers["apns-id"] == "8d1a8f5c-8c58-4d4b-a1a4-3d3f2c1b0a99")
        #expect(response.headers.fields.keys.allSatisfy { $0 == $0.lowercased() })
        #expect(APNsResponse(response).reason == .badDeviceToken)
        await transport.shutdown()
        try await fixture.shutdown()
    }

    @Test func unregisteredTokenIsReportedWithItsTimestamp() async throws {
        let fixture = try await SimulatorFixture.start()
        let since = Date(timeIntervalSince1970: 1_700_000_123.456)
        fixture.simulator.markUnregistered(deviceToken: SimulatorFixture.deviceToken(410), since: since)
        let client = fixture.client(try fixture.transport())
        let delivery = try await client.send(SimulatorFixture.liveActivity(410))
        guard case .tokenNoLongerValid(.unregistered, let reportedSince?) = delivery.outcome else {
            Issue.record("expected Unregistered with a timestamp, got \(delivery.outcome)")
            return
        }
        #expect(abs(reportedSince.timeIntervalSince(since)) < 0.002)
        #expect(delivery.attempts == 1)
        await client.shutdown()
        try await fixture.shutdown()
    }

    @Test func serviceUnavailableIsRetriedThenDelivered() async throws {
        let fixture = try await SimulatorFixture.start()
        try fixture.simulator.failNext(2, reason: .serviceUnavailable)
        let client = fixture.client(try fixture.transport())
        let delivery = try await client.send(SimulatorFixture.liveActivity(503))
        guard case .delivered = delivery.outcome else {
            Issue.record("expected delivery after retries, got \(delivery.outcome)")
            return
        }
        #expect(delivery.attempts == 3)
        #expect(fixture.simulator.rejectedCount == 2 && fixture.simulator.acceptedCount == 1)
        await client.shutdown()
        try await fixture.shutdown()
    }

    @Test func badRequestIsNotRetried() async throws {
        let fixture = try await SimulatorFixture.start()
        try fixture.simulator.failNext(1, reason: .badTopic)
        let client = fixture.client(try fixture.transport())
        let delivery = try await client.send(SimulatorFixture.liveActivity(400))
        #expect(delivery.outcome == .rejected(.badTopic))
        #expect(delivery.attempts == 1)
        #expect(fixture.simulator.rejectedCount == 1 && fixture.simulator.acceptedCount == 0)
        await client.shutdown()
        try await fixture.shutdown()
    }

    @Test func providerTokenIsReusedAndRenewedOnExpiredProviderToken() async throws {
        let fixture = try await SimulatorFixture.start()
        // Start 40 minutes back so both tokens carry an `iat` the simulator accepts.
        let clock = TestClock(Date() - 40 * 60)
        let client = fixture.client(try fixture.transport(), now: { clock.now })
        for number in 0..<20 {
            guard case .delivered = try await client.send(SimulatorFixture.liveActivity(number)).outcome else {
                Issue.record("push \(number) was not delivered")
                return
            }
        }
        #expect(client.providerTokensIssued == 1)

        clock.advance(by: 30 * 60)
        try fixture.simulator.failNext(1, reason: .expiredProviderToken)
        let delivery = try await client.send(SimulatorFixture.liveActivity(99))
        guard case .delivered = delivery.outcome else {
            Issue.record("expected delivery with a renewed token, got \(delivery.outcome)")
            return
        }
        #expect(client.providerTokensIssued == 2)
        let tokens = Set(fixture.simulator.accepted().compactMap { $0.header("authorization") })
        #expect(tokens.count == 2)
        await client.shutdown()
        try await fixture.shutdown()
    }
}
