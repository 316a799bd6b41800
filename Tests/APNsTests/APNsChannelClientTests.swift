@testable import APNs
import Foundation
import MetricsTestKit
import PushVocabulary
import Testing

/// Channel management and broadcasts through the APNs client: the requests it
/// builds and how it classifies and retries the answers (docs/apns.md).
@Suite struct APNsChannelClientTests {
    let clock = TestClock()
    let sleeps = RecordedSleeps()
    static let bundleID = "com.example.app"
    static let channel = BroadcastChannelID("dHN0LXNyY2gtY2hubA==")
    static let requestID = UUID(uuidString: "2288CF3F-70D8-46A6-97D7-DD5D00867127")!
    static let update = Data(#"{"aps":{"event":"update","timestamp":1,"content-state":{}}}"#.utf8)

    func client(_ transport: ScriptedTransport, environment: APNsEnvironment = .custom("https://127.0.0.1:2197", management: "https://127.0.0.1:2195"),
                retry: APNsRetryPolicy = APNsRetryPolicy(), metrics: TestMetrics = TestMetrics()) -> APNsClient {
        APNsClient(environment: environment, key: Keys.signing, transport: transport, retry: retry,
                   now: { [clock] in clock.now }, sleep: { [sleeps] in sleeps.sleep($0) }, random: { 1 }, metrics: metrics)
    }

    func headers(_ request: APNsHTTPRequest) -> [String: String] {
        Dictionary(request.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    var broadcast: APNsBroadcastRequest {
        APNsBroadcastRequest(channelID: Self.channel, bundleID: Self.bundleID, priority: 5, expiration: 0, requestID: Self.requestID,
                             payload: Self.update)
    }

    @Test func appleHostsForEachEnvironmentAndCustomOnes() {
        #expect(APNsEnvironment.sandbox.managementBaseURL == "https://api-manage-broadcast.sandbox.push.apple.com:2195")
        #expect(APNsEnvironment.production.managementBaseURL == "https://api-manage-broadcast.push.apple.com:2196")
        #expect(APNsEnvironment.sandbox.broadcastBaseURL == "https://api.sandbox.push.apple.com")
        #expect(APNsEnvironment.production.broadcastBaseURL == "https://api.push.apple.com")
        #expect(APNsEnvironment.custom("https://h:1/", management: "https://h:2/").managementBaseURL == "https://h:2")
        #expect(APNsEnvironment.custom("https://h:1/").managementBaseURL == "https://h:1")
    }

    @Test func createPostsThePolicyAndReadsTheNewChannelsID() async throws {
        let transport = ScriptedTransport([.http(201, ["apns-request-id": "2288cf3f-70d8-46a6-97d7-dd5d00867127",
                                                       "apns-channel-id": Self.channel.rawValue])])
        let answer = try await client(transport).createChannel(bundleID: Self.bundleID, storagePolicy: .mostRecentMessageStored,
                                                               requestID: Self.requestID)
        #expect(answer.outcome == .succeeded)
        #expect(answer.value == Self.channel)
        #expect(answer.response?.requestID == "2288cf3f-70d8-46a6-97d7-dd5d00867127")
        let sent = try #require(transport.sentRequests.first)
        #expect(sent.method == .post)
        #expect(sent.url == "https://127.0.0.1:2195/1/apps/com.example.app/channels")
        #expect(headers(sent)["apns-request-id"] == "2288cf3f-70d8-46a6-97d7-dd5d00867127")
        #expect(headers(sent)["authorization"]?.hasPrefix("bearer ey") == true)
        #expect(headers(sent)["apns-channel-id"] == nil)
        let body = try JSONSerialization.jsonObject(with: try #require(sent.body)) as? [String: Any]
        #expect(body?["message-storage-policy"] as? Int == 1)
        #expect(body?["push-type"] as? String == "LiveActivity")
        #expect(body?.count == 2)

        let noStorage = ScriptedTransport([.http(201, ["apns-channel-id": Self.channel.rawValue])])
        _ = try await client(noStorage).createChannel(bundleID: Self.bundleID, storagePolicy: .noMessageStored)
        let policy = try JSONSerialization.jsonObject(with: try #require(noStorage.sentRequests.first?.body)) as? [String: Any]
        #expect(policy?["message-storage-policy"] as? Int == 0)
    }

    @Test func readListAndDeleteUseTheirMethodsWithoutABody() async throws {
        let transport = ScriptedTransport([
            .http(200, [:], #"{"message-storage-policy":0,"push-type":"LiveActivity"}"#),
            .http(200, [:], #"{"channels":["YQ==","Yg=="]}"#),
            .http(204),
        ])
        let apns = client(transport)
        let read = try await apns.channelConfiguration(Self.channel, bundleID: Self.bundleID)
        #expect(read.value == BroadcastChannelConfiguration(storagePolicy: .noMessageStored))
        let list = try await apns.allChannels(bundleID: Self.bundleID)
        #expect(list.value == [BroadcastChannelID("YQ=="), BroadcastChannelID("Yg==")])
        let delete = try await apns.deleteChannel(Self.channel, bundleID: Self.bundleID)
        #expect(delete.outcome == .succeeded)

        let sent = transport.sentRequests
        #expect(sent.map(\.method) == [.get, .get, .delete])
        #expect(sent.map(\.url) == ["https://127.0.0.1:2195/1/apps/com.example.app/channels",
                                    "https://127.0.0.1:2195/1/apps/com.example.app/all-channels",
                                    "https://127.0.0.1:2195/1/apps/com.example.app/channels"])
        #expect(sent.map { headers($0)["apns-channel-id"] } == [Self.channel.rawValue, nil, Self.channel.rawValue])
        #expect(sent.allSatisfy { $0.body == nil })
        // Every request has its own id.
        #expect(Set(sent.compactMap { headers($0)["apns-request-id"] }).count == 3)
    }

    @Test func broadcastGoesToThePushHostWithTheChannelAndNoTokenOrTopic() async throws {
        let transport = ScriptedTransport([.http(200, ["apns-request-id": "2288cf3f-70d8-46a6-97d7-dd5d00867127"])])
        let answer = try await client(transport).broadcast(broadcast)
        #expect(answer.outcome == .succeeded)
        let sent = try #require(transport.sentRequests.first)
        #expect(sent.method == .post)
        #expect(sent.url == "https://127.0.0.1:2197/4/broadcasts/apps/com.example.app")
        let sentHeaders = headers(sent)
        #expect(sentHeaders["apns-push-type"] == "liveactivity")
        #expect(sentHeaders["apns-channel-id"] == Self.channel.rawValue)
        #expect(sentHeaders["apns-priority"] == "5")
        #expect(sentHeaders["apns-expiration"] == "0")
        #expect(sentHeaders["apns-request-id"] == "2288cf3f-70d8-46a6-97d7-dd5d00867127")
        #expect(sentHeaders["apns-topic"] == nil && sentHeaders["apns-id"] == nil)
        #expect(sent.body == Self.update)

        var withoutExpiration = broadcast
        withoutExpiration.expiration = nil
        let other = ScriptedTransport([.http(200)])
        _ = try await client(other).broadcast(withoutExpiration)
        #expect(headers(try #require(other.sentRequests.first))["apns-expiration"] == nil)
    }

    @Test(arguments: [
        (200, "", "succeeded"), (201, "", "succeeded"), (204, "", "succeeded"),
        (400, "ChannelNotRegistered", "gone"), (400, "BadChannelId", "gone"),
        (400, "CannotCreateChannelConfig", "limit"),
        (429, "TooManyRequests", "retry"), (500, "InternalServerError", "retry"), (503, "ServiceUnavailable", "retry"),
        (503, "Shutdown", "retry"), (503, "Service Unavailable", "retry"), (502, "", "retry"),
        (400, "FeatureNotEnabled", "rejected"), (400, "MissingChannelId", "rejected"), (400, "BadRequestParams", "rejected"),
        (400, "BadRequestPayload", "rejected"), (400, "PayloadEmpty", "rejected"), (400, "BadMessageId", "rejected"),
        (400, "MissingPushType", "rejected"), (400, "InvalidPushType", "rejected"), (400, "BadExpirationDate", "rejected"),
        (400, "TopicDisallowed", "rejected"), (400, "BadPriority", "rejected"), (403, "TopicMismatch", "rejected"),
        (403, "InvalidProviderToken", "rejected"), (403, "MissingProviderToken", "rejected"), (404, "BadPath", "rejected"),
        (405, "MethodNotAllowed", "rejected"), (413, "PayloadTooLarge", "rejected"),
        (429, "TooManyProviderTokenUpdates", "rejected"), (400, "SomethingNew", "rejected"),
    ])
    func everyDocumentedAnswerIsClassified(status: Int, reason: String, expected: String) {
        let body = reason.isEmpty ? "" : #"{"reason":"\#(reason)"}"#
        let response = APNsChannelResponse(APNsHTTPResponse(status: status, headers: ["apns-request-id": "r-1"], body: Data(body.utf8)))
        let kind = switch response.outcome {
        case .succeeded: "succeeded"
        case .channelGone: "gone"
        case .channelLimitReached: "limit"
        case .retryLater: "retry"
        case .rejected: "rejected"
        }
        #expect(kind == expected, "\(status) \(reason)")
        #expect(response.requestID == "r-1")
        if !reason.isEmpty { #expect(response.reason?.description == reason) }
    }

    @Test func broadcastsAreRetriedWithTheSameRequestID() async throws {
        let transport = ScriptedTransport([
            .http(429, [:], #"{"reason":"TooManyRequests"}"#), .failure(.connectionLost("reset")), .http(200),
        ])
        let answer = try await client(transport).broadcast(broadcast)
        #expect(answer.outcome == .succeeded)
        #expect(answer.attempts == 3)
        #expect(sleeps.all == [.milliseconds(200), .milliseconds(400)])
        #expect(Set(transport.sentRequests.compactMap { headers($0)["apns-request-id"] }) == ["2288cf3f-70d8-46a6-97d7-dd5d00867127"])
    }

    @Test func aGoneChannelIsReportedAtOnce() async throws {
        let transport = ScriptedTransport([.http(400, [:], #"{"reason":"ChannelNotRegistered"}"#)])
        let answer = try await client(transport).broadcast(broadcast)
        #expect(answer.outcome == .channelGone(.channelNotRegistered))
        #expect(answer.attempts == 1)
        #expect(sleeps.all.isEmpty)
    }

    @Test func aCreateThatMayHaveReachedAPNsIsNotSentAgain() async throws {
        let lost = ScriptedTransport([.failure(.connectionLost("reset")), .http(201, ["apns-channel-id": "YQ=="])])
        let answer = try await client(lost).createChannel(bundleID: Self.bundleID, storagePolicy: .mostRecentMessageStored)
        #expect(answer.attempts == 1)
        #expect(lost.sentRequests.count == 1)
        guard case .retryLater = answer.outcome else {
            Issue.record("expected retryLater, got \(answer.outcome)")
            return
        }
        // Refusals that made nothing are retried: a status, or no connection at all.
        let refused = ScriptedTransport([
            .http(503, [:], #"{"reason":"ServiceUnavailable"}"#), .failure(.cannotConnect("refused")), .http(201, ["apns-channel-id": "YQ=="]),
        ])
        let created = try await client(refused).createChannel(bundleID: Self.bundleID, storagePolicy: .noMessageStored)
        #expect(created.value == BroadcastChannelID("YQ=="))
        #expect(created.attempts == 3)
    }

    @Test func aSuccessThatCannotBeReadIsRejectedNotRetried() async throws {
        let transport = ScriptedTransport([.http(201), .http(201, ["apns-channel-id": "YQ=="])])
        let answer = try await client(transport).createChannel(bundleID: Self.bundleID, storagePolicy: .noMessageStored)
        #expect(answer.value == nil)
        #expect(transport.sentRequests.count == 1)
        guard case .rejected(.unknown(let detail)) = answer.outcome else {
            Issue.record("expected a rejection, got \(answer.outcome)")
            return
        }
        #expect(detail.contains("apns-channel-id"))
        let list = try await client(ScriptedTransport([.http(200, [:], "<html>")])).allChannels(bundleID: Self.bundleID)
        #expect(list.value == nil)
    }

    @Test func theOneProviderTokenIsSharedAndRenewedOnExpiredProviderToken() async throws {
        let transport = ScriptedTransport([
            .http(200), .http(201, ["apns-channel-id": "YQ=="]), .http(403, [:], #"{"reason":"ExpiredProviderToken"}"#), .http(200),
        ])
        let apns = client(transport)
        _ = try await apns.send(APNsRequest.liveActivity(deviceToken: token64, bundleID: Self.bundleID, priority: 5, payload: Self.update))
        _ = try await apns.createChannel(bundleID: Self.bundleID, storagePolicy: .noMessageStored)
        clock.advance(minutes: 30)
        let answer = try await apns.broadcast(broadcast)
        #expect(answer.outcome == .succeeded)
        #expect(answer.attempts == 1)
        let tokens = transport.sentRequests.map { headers($0)["authorization"]! }
        #expect(tokens[0] == tokens[1] && tokens[1] == tokens[2])
        #expect(tokens[3] != tokens[2])
        #expect(apns.providerTokensIssued == 2)
    }

    @Test func mistakesAreCaughtBeforeSending() async {
        let transport = ScriptedTransport([.http(200)])
        let apns = client(transport)
        var cases: [(APNsBroadcastRequest, APNsChannelRequestError)] = []
        var request = broadcast
        request.priority = 1
        cases.append((request, .badPriority(1)))
        request = broadcast
        request.expiration = -1
        cases.append((request, .badExpiration(-1)))
        request = broadcast
        request.payload = Data(repeating: 0x20, count: 5121)
        cases.append((request, .payloadTooLarge(bytes: 5121, limit: 5120)))
        request = broadcast
        request.payload = Data()
        cases.append((request, .payloadEmpty))
        request = broadcast
        request.channelID = BroadcastChannelID("not base64!")
        cases.append((request, .badChannelID("not base64!")))
        request = broadcast
        request.bundleID = "com.example.app.push-type.liveactivity"
        cases.append((request, .badBundleID("com.example.app.push-type.liveactivity")))
        for (request, error) in cases {
            await #expect(throws: error) { try await apns.broadcast(request) }
        }
        // 5,120 bytes is allowed.
        request = broadcast
        request.payload = Data(repeating: 0x20, count: 5120)
        #expect(throws: Never.self) { try request.validate() }

        await #expect(throws: APNsChannelRequestError.badBundleID("com.example/app")) {
            try await apns.createChannel(bundleID: "com.example/app", storagePolicy: .noMessageStored)
        }
        await #expect(throws: APNsChannelRequestError.badChannelID("")) {
            try await apns.deleteChannel(BroadcastChannelID(""), bundleID: Self.bundleID)
        }
        #expect(transport.sentRequests.isEmpty)
    }

    @Test func metricsCountBroadcastsAndChannelRequests() async throws {
        let metrics = TestMetrics()
        let transport = ScriptedTransport([.http(503, [:], #"{"reason":"ServiceUnavailable"}"#), .http(200), .http(204)])
        let apns = client(transport, metrics: metrics)
        _ = try await apns.broadcast(broadcast)
        _ = try await apns.deleteChannel(Self.channel, bundleID: Self.bundleID)
        #expect(metrics.counterTotal(label: "apns_broadcasts_total", dimensions: [
            ("priority", "5"), ("status", "503"), ("reason", "ServiceUnavailable"),
        ]) == 1)
        #expect(metrics.counterTotal(label: "apns_broadcasts_total", dimensions: [("priority", "5"), ("status", "200"), ("reason", "none")]) == 1)
        #expect(metrics.counterTotal(label: "apns_channel_requests_total", dimensions: [
            ("operation", "delete"), ("status", "204"), ("reason", "none"),
        ]) == 1)
        #expect(try metrics.expectTimer("apns_broadcast_duration_seconds").values.count == 2)
    }
}
