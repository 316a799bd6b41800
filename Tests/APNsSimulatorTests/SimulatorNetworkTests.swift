import APNs
import APNsSimulator
import Foundation
import NIOCore
import NIOHTTP2
import Testing
import Vocabulary

/// A started simulator that trusts `Fixtures.provider`, a connected client, and the
/// pieces of a valid push signed at the real clock.
struct LiveSimulator {
    let simulator: APNsSimulator
    let client: TestHTTP2Client
    let token = Fixtures.provider.token(issuedAt: Date())

    static func start(_ configuration: APNsSimulatorConfiguration = .init()) async throws -> LiveSimulator {
        let simulator = try await APNsSimulator.start(configuration)
        try simulator.registerProviderKey(Fixtures.provider.signingKey)
        let client = try await TestHTTP2Client.connect(port: simulator.port, caFile: simulator.certificateFile)
        return LiveSimulator(simulator: simulator, client: client)
    }

    func push(_ pushType: PushType = .liveactivity, payload: String = Fixtures.liveActivityUpdate,
              token deviceToken: String = Fixtures.deviceToken, extraHeaders: [(String, String)] = [],
              authorization: String? = nil, on client: TestHTTP2Client? = nil) async throws -> TestHTTP2Client.Response {
        var headers = Fixtures.headers(pushType, token: token).map { ($0.name, $0.value) }
        if let authorization { headers[0] = ("authorization", authorization) }
        return try await (client ?? self.client).send(path: "/3/device/\(deviceToken)", headers: headers + extraHeaders,
                                                      body: Data(payload.utf8))
    }

    func stop() async throws {
        await client.close()
        try await simulator.shutdown()
    }

    /// Polls until `condition` holds, for what the simulator does on its own event loops.
    func eventually(_ condition: () -> Bool) async throws {
        for _ in 0..<500 where !condition() {
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

@Suite("The simulator over TLS and HTTP/2")
struct SimulatorNetworkTests {
    @Test func clientResetsAreCountedPerConnection() async throws {
        let live = try await LiveSimulator.start(.init(clientResetLimit: nil))
        let headers = Fixtures.headers(.liveactivity, token: live.token).map { ($0.name, $0.value) }
        #expect(try await live.push().status == 200)
        for _ in 0..<7 {
            try await live.client.openAndReset(path: "/3/device/\(Fixtures.deviceToken)", headers: headers)
        }
        let second = try await TestHTTP2Client.connect(port: live.simulator.port, caFile: live.simulator.certificateFile)
        #expect(try await live.push(on: second).status == 200)
        try await second.openAndReset(path: "/3/device/\(Fixtures.deviceToken)", headers: headers)
        try await live.eventually { live.simulator.clientResets == 8 }

        #expect(live.simulator.clientResets == 8)
        #expect(live.simulator.clientResetsByConnection == [1: 7, 2: 1])
        // A push answered in full needs no reset, and none was counted for one.
        #expect(live.simulator.acceptedCount == 2)
        await second.close()
        try await live.stop()
    }

    @Test func tooManyResetsOnAConnectionGetGoAwayEnhanceYourCalm() async throws {
        let live = try await LiveSimulator.start(.init(clientResetLimit: .init(maximumCount: 5, window: .seconds(30))))
        let headers = Fixtures.headers(.liveactivity, token: live.token).map { ($0.name, $0.value) }
        for _ in 0..<5 {
            try await live.client.openAndReset(path: "/3/device/\(Fixtures.deviceToken)", headers: headers)
        }
        #expect(try await live.push().status == 200, "five resets are within the limit")
        try await live.client.openAndReset(path: "/3/device/\(Fixtures.deviceToken)", headers: headers)

        let goAway = try await live.client.nextGoAway()
        #expect(goAway.errorCode == .enhanceYourCalm)
        #expect(goAway.debugData == "too many stream resets")
        try await live.client.waitUntilClosed()
        #expect(live.simulator.clientResets == 6)
        try await live.stop()
    }

    @Test func validPushIsAcceptedAndRecordedWithItsHeaders() async throws {
        let live = try await LiveSimulator.start(.init(bundleIDs: [Fixtures.bundleID]))
        let apnsID = "6e0f9a7c-2d3b-4c5e-8f90-1a2b3c4d5e6f"
        let response = try await live.push(extraHeaders: [("apns-id", apnsID), ("apns-collapse-id", "hero-1")])
        #expect(response.status == 200)
        #expect(response.headers["apns-id"] == apnsID)
        let uniqueID = try #require(response.headers["apns-unique-id"])
        #expect(UUID(uuidString: uniqueID) != nil && uniqueID == uniqueID.lowercased())

        let recorded = try #require(live.simulator.accepted().first)
        #expect(live.simulator.accepted().count == 1)
        #expect(recorded.deviceToken == Fixtures.deviceToken)
        #expect(recorded.pushType == .liveactivity)
        #expect(recorded.topic == Fixtures.bundleID + ".push-type.liveactivity")
        #expect(recorded.bundleID == Fixtures.bundleID)
        #expect(recorded.priority == 10)
        #expect(recorded.apnsID == apnsID)
        #expect(recorded.uniqueID == uniqueID)
        #expect(recorded.collapseID == "hero-1")
        #expect(recorded.payload == Data(Fixtures.liveActivityUpdate.utf8))
        #expect(recorded.header("authorization") == "bearer \(live.token)")
        // Printing a record (in a failure message, say) never shows the bearer token.
        #expect(!String(describing: recorded).contains(live.token))
        #expect(String(describing: recorded).contains("authorization: bearer <redacted>"))
        #expect(recorded.header("apns-push-type") == "liveactivity")
        #expect(recorded.connectionNumber == 1)
        #expect(recorded.streamID == response.streamID)
        #expect(live.simulator.rejected().isEmpty)

        // Without an apns-id, the simulator makes one up and records the same.
        let second = try await live.push(.pushtotalk, payload: Fixtures.pushToTalk)
        let generated = try #require(second.headers["apns-id"])
        #expect(generated == generated.lowercased() && UUID(uuidString: generated) != nil)
        #expect(live.simulator.accepted().last?.apnsID == generated)
        #expect(live.simulator.accepted().last?.expiration == 0)
        try await live.stop()
    }

    @Test func productionModeSendsNoUniqueID() async throws {
        let live = try await LiveSimulator.start(.init(sandbox: false))
        let response = try await live.push(.alert, payload: Fixtures.alert)
        #expect(response.status == 200)
        #expect(response.headers["apns-unique-id"] == nil)
        try await live.stop()
    }

    @Test func invalidJWTGets403InvalidProviderToken() async throws {
        let live = try await LiveSimulator.start()
        let impostor = ProviderFixture(keyID: Fixtures.provider.keyID, teamID: Fixtures.provider.teamID)
        let response = try await live.push(authorization: "bearer " + impostor.token(issuedAt: Date()))
        #expect(response.status == 403)
        #expect(response.reason == "InvalidProviderToken")
        #expect(response.headers["apns-id"] != nil)
        let rejected = try #require(live.simulator.rejected().first)
        #expect(rejected.reason == .invalidProviderToken && rejected.status == 403 && !rejected.injected)
        #expect(live.simulator.accepted().isEmpty)
        try await live.stop()
    }

    @Test func badPayloadIsExplainedOverTheWire() async throws {
        let live = try await LiveSimulator.start()
        let response = try await live.push(payload: #"{"aps":{"event":"update","timestamp":"now","content-state":{}}}"#)
        #expect(response.status == 400)
        #expect(response.reason == "BadPayload")
        #expect((response.json?["detail"] as? String)?.contains("aps.timestamp must be an integer") == true)
        #expect(live.simulator.rejected().first?.detail?.contains("aps.timestamp") == true)
        try await live.stop()
    }

    @Test func unregisteredTokenGets410WithItsTimestamp() async throws {
        let live = try await LiveSimulator.start()
        let since = Date(timeIntervalSince1970: 1_700_000_123.456)
        live.simulator.markUnregistered(deviceToken: Fixtures.deviceToken.uppercased(), since: since)
        let response = try await live.push()
        #expect(response.status == 410)
        #expect(response.reason == "Unregistered")
        #expect((response.json?["timestamp"] as? NSNumber)?.int64Value == 1_700_000_123_456)
        // APNsResponse in the APNs module reads it back as the same instant.
        let parsed = APNsResponse(APNsHTTPResponse(status: response.status, headers: response.headers, body: response.body))
        #expect(parsed.outcome == .tokenNoLongerValid(.unregistered, since: Date(timeIntervalSince1970: 1_700_000_123.456)))
        // Another token is still fine.
        #expect(try await live.push(token: String(repeating: "cd", count: 32)).status == 200)
        try await live.stop()
    }

    @Test func failNextAnswers503ThenSucceeds() async throws {
        let live = try await LiveSimulator.start()
        try live.simulator.failNext(1, status: 503, reason: .serviceUnavailable)
        let failed = try await live.push()
        #expect(failed.status == 503)
        #expect(failed.reason == "ServiceUnavailable")
        let retried = try await live.push()
        #expect(retried.status == 200)
        #expect(live.simulator.accepted().count == 1)
        let rejected = try #require(live.simulator.rejected().first)
        #expect(rejected.injected && rejected.status == 503 && rejected.reason == .serviceUnavailable)
        try await live.stop()
    }

    @Test func invalidRequestsDoNotUseUpInjectedFailures() async throws {
        let live = try await LiveSimulator.start()
        try live.simulator.failNext(1, reason: .tooManyRequests)
        #expect(try await live.push(payload: "").reason == "PayloadEmpty")
        let throttled = try await live.push()
        #expect(throttled.status == 429 && throttled.reason == "TooManyRequests")
        try await live.stop()
    }

    @Test func failShareIsRepeatableForASeed() async throws {
        let live = try await LiveSimulator.start()
        func run() async throws -> [Int] {
            live.simulator.reset()
            try live.simulator.failShare(0.5, status: 500, reason: .internalServerError, seed: 42)
            var statuses: [Int] = []
            for _ in 0..<24 { statuses.append(try await live.push().status) }
            return statuses
        }
        let first = try await run()
        #expect(first.contains(200) && first.contains(500))
        #expect(try await run() == first)
        #expect(live.simulator.rejected().allSatisfy { $0.injected && $0.reason == .internalServerError })
        try await live.stop()
    }

    @Test func concurrentStreamsShareOneConnection() async throws {
        let live = try await LiveSimulator.start()
        // Held answers keep every stream open at once.
        try live.simulator.delayResponses(by: .milliseconds(300))
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<50 { group.addTask { try await live.push().status } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 50))
        #expect(live.simulator.connectionsAccepted == 1)
        #expect(live.simulator.maximumConcurrentStreamsSeen == 50)
        let records = live.simulator.accepted()
        #expect(Set(records.map(\.connectionNumber)) == [1])
        #expect(Set(records.map(\.streamID)).count == 50)
        try await live.stop()
    }

    @Test func goAwayCarriesTheReasonAndLastStreamAndDropsNothingSilently() async throws {
        let live = try await LiveSimulator.start()
        #expect(try await live.push().status == 200)  // stream 1
        try live.simulator.delayResponses(by: .milliseconds(300))
        let inFlight = Task { try await live.push() }  // stream 3, still open when GOAWAY goes out
        try await live.eventually { live.simulator.maximumConcurrentStreamsSeen >= 1 && live.simulator.acceptedCount == 2 }

        await live.simulator.sendGoAway(reason: .shutdown)
        let goAway = try await live.client.nextGoAway()
        #expect(goAway.lastStreamID == 3)
        #expect(goAway.errorCode == .noError)
        let debug = try #require(goAway.debugData)
        #expect(try JSONSerialization.jsonObject(with: Data(debug.utf8)) as? [String: String] == ["reason": "Shutdown"])

        // The stream the GOAWAY covers is still answered...
        #expect(try await inFlight.value.status == 200)
        // ...a newer one is refused, not lost: the client is told.
        await #expect(throws: (any Error).self) { try await live.push() }
        // The drained connection closes; a new one is accepted.
        try await live.client.waitUntilClosed()
        let next = try await TestHTTP2Client.connect(port: live.simulator.port, caFile: live.simulator.certificateFile)
        #expect(try await live.push(on: next).status == 200)
        #expect(live.simulator.connectionsAccepted == 2)
        await next.close()
        try await live.stop()
    }

    @Test func droppedConnectionFailsWhatIsInFlight() async throws {
        let live = try await LiveSimulator.start()
        try live.simulator.delayResponses(by: .seconds(5))
        let inFlight = Task { try await live.push() }
        try await live.eventually { live.simulator.acceptedCount == 1 }
        await live.simulator.dropConnections()
        await #expect(throws: TestHTTP2Client.StreamFailure.closedWithoutResponse) { try await inFlight.value }
        try await live.client.waitUntilClosed()
        try await live.simulator.shutdown()
    }

    @Test func oversizedBodyIsAnsweredWithoutReadingItAllAndTheConnectionStaysUsable() async throws {
        let live = try await LiveSimulator.start()
        let huge = #"{"aps":{},"pad":""# + String(repeating: "x", count: 1_100_000) + #""}"#
        let response = try await live.push(.alert, payload: huge)
        #expect(response.status == 413)
        #expect(response.reason == "PayloadTooLarge")
        #expect(try await live.push().status == 200)
        #expect(live.simulator.connectionsAccepted == 1)
        try await live.stop()
    }

    @Test func certificateIsVerifiedByHostNameAndUntrustedClientsFail() async throws {
        let live = try await LiveSimulator.start()
        let byName = try await TestHTTP2Client.connect(port: live.simulator.port, caFile: live.simulator.certificateFile,
                                                       serverHostname: "localhost")
        #expect(try await live.push(on: byName).status == 200)
        await byName.close()

        // Any other CA file (here: an unrelated simulator's) must not be trusted.
        let stranger = try await APNsSimulator.start()
        let untrusting = try await TestHTTP2Client.connect(port: live.simulator.port, caFile: stranger.certificateFile)
        await #expect(throws: (any Error).self) { try await live.push(on: untrusting) }
        await untrusting.close()
        try await stranger.shutdown()
        try await live.stop()
    }

    @Test func writesCertificateAndPrivateKeyIntoTheChosenDirectory() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apns-sim-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let simulator = try await APNsSimulator.start(.init(certificateDirectory: directory))
        #expect(simulator.certificateFile == directory.appendingPathComponent("cert.pem"))
        #expect(try String(contentsOf: simulator.certificateFile, encoding: .utf8).hasPrefix("-----BEGIN CERTIFICATE-----"))
        let permissions = try FileManager.default.attributesOfItem(atPath: simulator.certificateKeyFile.path)[.posixPermissions]
        #expect((permissions as? NSNumber)?.intValue == 0o600)
        #expect(simulator.baseURL == "https://127.0.0.1:\(simulator.port)")
        try await simulator.shutdown()
        // A directory the caller chose is the caller's to keep...
        #expect(FileManager.default.fileExists(atPath: simulator.certificateFile.path))

        // ...one the simulator made up for itself goes away with it.
        let temporary = try await APNsSimulator.start()
        #expect(FileManager.default.fileExists(atPath: temporary.certificateFile.path))
        try await temporary.shutdown()
        #expect(!FileManager.default.fileExists(atPath: temporary.certificateFile.deletingLastPathComponent().path))
    }

    @Test func badConfigurationAndFaultsAreRefusedClearly() async throws {
        await #expect(throws: APNsSimulatorError.self) { try await APNsSimulator.start(.init(port: 70000)) }
        let simulator = try await APNsSimulator.start()
        #expect(throws: APNsSimulatorError.self) { try simulator.failNext(-1, reason: .shutdown) }
        #expect(throws: APNsSimulatorError.self) { try simulator.failShare(1.5, reason: .shutdown, seed: 1) }
        #expect(throws: APNsSimulatorError.self) { try simulator.failNext(1, status: 200, reason: .shutdown) }
        #expect(throws: APNsSimulatorError.self) { try simulator.delayResponses(by: .seconds(-1)) }
        #expect(throws: ProviderKeyRegistrationError.unreadablePublicKey) {
            try simulator.registerProviderKey(publicKeyPEM: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----", keyID: "K", teamID: "T")
        }
        try await simulator.shutdown()
    }
}
