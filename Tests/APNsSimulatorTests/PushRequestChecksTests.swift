import APNs
import APNsSimulator
import Foundation
import Testing
import Vocabulary

/// One wrong request and what APNs answers it with.
struct RejectionCase: Sendable, CustomTestStringConvertible {
    var name: String
    var pushType: PushType = .liveactivity
    var payload: String = Fixtures.liveActivityUpdate
    var rules: PushRequestRules = Fixtures.rules
    var change: @Sendable (inout IncomingPushRequest) -> Void
    var status: Int
    var reason: String

    var testDescription: String { "\(name) → \(status) \(reason)" }
}

private let tooLongCollapseID = String(repeating: "c", count: 65)

private let headerCases: [RejectionCase] = [
    RejectionCase(name: "GET", change: { $0.method = "GET" }, status: 405, reason: "MethodNotAllowed"),
    RejectionCase(name: "path of another API version", change: { $0.path = "/2/device/\(Fixtures.deviceToken)" },
                  status: 404, reason: "BadPath"),
    RejectionCase(name: "path with an extra segment", change: { $0.path += "/extra" }, status: 404, reason: "BadPath"),
    RejectionCase(name: "no device token", change: { $0.path = "/3/device/" }, status: 400, reason: "MissingDeviceToken"),
    RejectionCase(name: "odd-length token", change: { $0.path += "a" }, status: 400, reason: "BadDeviceToken"),
    RejectionCase(name: "non-hex token", change: { $0.path = "/3/device/" + String(repeating: "zz", count: 32) },
                  status: 400, reason: "BadDeviceToken"),
    RejectionCase(name: "token shorter than 16", change: { $0.path = "/3/device/abcdef0123" }, status: 400, reason: "BadDeviceToken"),
    RejectionCase(name: "token longer than 512", change: { $0.path = "/3/device/" + String(repeating: "ab", count: 257) },
                  status: 400, reason: "BadDeviceToken"),
    RejectionCase(name: "apns-topic twice", change: { $0.headers.append(("apns-topic", "x")) }, status: 400, reason: "DuplicateHeaders"),
    RejectionCase(name: "no authorization", change: { $0.setHeader("authorization", nil) }, status: 403, reason: "MissingProviderToken"),
    RejectionCase(name: "missing push type", change: { $0.setHeader("apns-push-type", nil) }, status: 400, reason: "InvalidPushType"),
    RejectionCase(name: "unknown push type", change: { $0.setHeader("apns-push-type", "banner") }, status: 400, reason: "InvalidPushType"),
    RejectionCase(name: "missing topic", change: { $0.setHeader("apns-topic", nil) }, status: 400, reason: "MissingTopic"),
    RejectionCase(name: "topic of an app not allowed",
                  rules: PushRequestRules(providerKeys: [try! Fixtures.provider.registered()], bundleIDs: ["com.example.other"]),
                  change: { _ in }, status: 400, reason: "TopicDisallowed"),
    RejectionCase(name: "liveactivity on the bare bundle id", change: { $0.setHeader("apns-topic", Fixtures.bundleID) },
                  status: 400, reason: "DeviceTokenNotForTopic"),
    RejectionCase(name: "alert on a .voip-ptt topic", pushType: .alert, payload: Fixtures.alert,
                  change: { $0.setHeader("apns-topic", Fixtures.bundleID + ".voip-ptt") }, status: 400, reason: "DeviceTokenNotForTopic"),
    RejectionCase(name: "pushtotalk on a .voip topic", pushType: .pushtotalk, payload: Fixtures.pushToTalk,
                  change: { $0.setHeader("apns-topic", Fixtures.bundleID + ".voip") }, status: 400, reason: "DeviceTokenNotForTopic"),
    RejectionCase(name: "priority 7", change: { $0.setHeader("apns-priority", "7") }, status: 400, reason: "BadPriority"),
    RejectionCase(name: "priority not a number", change: { $0.setHeader("apns-priority", "high") }, status: 400, reason: "BadPriority"),
    RejectionCase(name: "priority with a sign", change: { $0.setHeader("apns-priority", "+10") }, status: 400, reason: "BadPriority"),
    RejectionCase(name: "liveactivity at priority 1", change: { $0.setHeader("apns-priority", "1") }, status: 400, reason: "BadPriority"),
    RejectionCase(name: "pushtotalk at priority 5", pushType: .pushtotalk, payload: Fixtures.pushToTalk,
                  change: { $0.setHeader("apns-priority", "5") }, status: 400, reason: "BadPriority"),
    RejectionCase(name: "negative expiration", change: { $0.setHeader("apns-expiration", "-1") }, status: 400, reason: "BadExpirationDate"),
    RejectionCase(name: "fractional expiration", change: { $0.setHeader("apns-expiration", "1.5") }, status: 400, reason: "BadExpirationDate"),
    RejectionCase(name: "apns-id not a UUID", change: { $0.setHeader("apns-id", "push-1") }, status: 400, reason: "BadMessageId"),
    RejectionCase(name: "apns-id without hyphens", change: { $0.setHeader("apns-id", "123e4567e89b12d3a456426614174000") },
                  status: 400, reason: "BadMessageId"),
    RejectionCase(name: "collapse id of 65 bytes", change: { $0.setHeader("apns-collapse-id", tooLongCollapseID) },
                  status: 400, reason: "BadCollapseId"),
    RejectionCase(name: "empty body", change: { $0.body = Data() }, status: 400, reason: "PayloadEmpty"),
    RejectionCase(name: "liveactivity body over 4096", change: { $0.body = paddedPayload(bytes: 4097) },
                  status: 413, reason: "PayloadTooLarge"),
    RejectionCase(name: "pushtotalk body over 5120", pushType: .pushtotalk, payload: Fixtures.pushToTalk,
                  change: { $0.body = paddedPayload(bytes: 5121) }, status: 413, reason: "PayloadTooLarge"),
    RejectionCase(name: "unregistered token",
                  rules: PushRequestRules(providerKeys: [try! Fixtures.provider.registered()],
                                          unregisteredTokens: [Fixtures.deviceToken.uppercased(): Fixtures.now]),
                  change: { _ in }, status: 410, reason: "Unregistered"),
    // Several faults at once: the first in APNs's order wins.
    RejectionCase(name: "GET with a bad token", change: { $0.method = "GET"; $0.path = "/3/device/xyz" },
                  status: 405, reason: "MethodNotAllowed"),
    RejectionCase(name: "no authorization and no push type",
                  change: { $0.setHeader("authorization", nil); $0.setHeader("apns-push-type", nil) },
                  status: 403, reason: "MissingProviderToken"),
    RejectionCase(name: "bad priority and empty body", change: { $0.setHeader("apns-priority", "3"); $0.body = Data() },
                  status: 400, reason: "BadPriority"),
]

/// A JSON object of exactly `bytes` bytes.
private func paddedPayload(bytes: Int) -> Data {
    let prefix = #"{"aps":{},"pad":""#
    return Data((prefix + String(repeating: "x", count: bytes - prefix.utf8.count - 2) + #""}"#).utf8)
}

@Suite("Request checks, in APNs's order")
struct PushRequestChecksTests {
    @Test(arguments: headerCases)
    func rejects(_ testCase: RejectionCase) {
        var request = Fixtures.request(testCase.pushType, payload: testCase.payload)
        testCase.change(&request)
        var connection = ConnectionTokenState()
        let verdict = PushRequestChecks.verdict(for: request, rules: testCase.rules, connection: &connection, now: Fixtures.now)
        guard case .rejected(let rejection) = verdict else {
            Issue.record("accepted a request that APNs refuses")
            return
        }
        #expect(rejection.status == testCase.status)
        #expect(rejection.reason.description == testCase.reason)
    }

    static let goodRequests: [(String, PushType, String)] = [
        ("liveactivity start", .liveactivity, Fixtures.liveActivityStart),
        ("liveactivity update", .liveactivity, Fixtures.liveActivityUpdate),
        ("liveactivity end", .liveactivity, Fixtures.liveActivityEnd),
        ("pushtotalk", .pushtotalk, Fixtures.pushToTalk),
        ("alert", .alert, Fixtures.alert),
    ]

    @Test(arguments: goodRequests)
    func accepts(_ name: String, pushType: PushType, payload: String) throws {
        var connection = ConnectionTokenState()
        let verdict = PushRequestChecks.verdict(for: Fixtures.request(pushType, payload: payload), rules: Fixtures.rules,
                                                connection: &connection, now: Fixtures.now)
        guard case .accepted(let push) = verdict else {
            Issue.record("\(name) refused: \(verdict)")
            return
        }
        #expect(push.pushType == pushType)
        #expect(push.bundleID == Fixtures.bundleID)
        #expect(push.topic == pushType.topic(bundleID: Fixtures.bundleID).rawValue)
        #expect(push.provider.keyID == Fixtures.provider.keyID)
    }

    @Test func acceptsWhatAPNsDefaultsOrAllowsAtTheLimits() {
        var request = Fixtures.request(.alert, payload: Fixtures.alert)
        request.setHeader("apns-priority", nil)
        request.setHeader("apns-collapse-id", String(repeating: "c", count: 64))
        request.setHeader("apns-id", "123E4567-E89B-12D3-A456-426614174000")
        request.setHeader("apns-expiration", "0")
        request.path = "/3/device/" + Fixtures.deviceToken.uppercased()
        var connection = ConnectionTokenState()
        let verdict = PushRequestChecks.verdict(for: request, rules: Fixtures.rules, connection: &connection, now: Fixtures.now)
        guard case .accepted(let push) = verdict else {
            Issue.record("refused: \(verdict)")
            return
        }
        #expect(push.priority == 10)
        #expect(push.expiration == 0)

        var largest = Fixtures.request(.pushtotalk, payload: Fixtures.pushToTalk)
        largest.body = paddedPayload(bytes: 5120)
        #expect(largest.body.count == 5120)
        var freshConnection = ConnectionTokenState()
        #expect(PushRequestChecks.verdict(for: largest, rules: Fixtures.rules, connection: &freshConnection, now: Fixtures.now)
            .isAccepted)
    }

    @Test func unregisteredAnswerCarriesTheTimestampInMilliseconds() throws {
        let since = Date(timeIntervalSince1970: 1_699_999_000.25)
        let rules = PushRequestRules(providerKeys: [try Fixtures.provider.registered()],
                                     unregisteredTokens: [Fixtures.deviceToken: since])
        var connection = ConnectionTokenState()
        let verdict = PushRequestChecks.verdict(for: Fixtures.request(.liveactivity, payload: Fixtures.liveActivityUpdate),
                                                rules: rules, connection: &connection, now: Fixtures.now)
        guard case .rejected(let rejection) = verdict else {
            Issue.record("accepted")
            return
        }
        let body = try #require(try JSONSerialization.jsonObject(with: rejection.responseBody) as? [String: Any])
        #expect(body["reason"] as? String == "Unregistered")
        #expect((body["timestamp"] as? NSNumber)?.int64Value == 1_699_999_000_250)
    }

    @Test func errorBodyIsAppleShapedJSON() throws {
        let body = try #require(try JSONSerialization.jsonObject(with: PushRejection(.badDeviceToken).responseBody) as? [String: Any])
        #expect(body.count == 1)
        #expect(body["reason"] as? String == "BadDeviceToken")
    }
}

extension PushVerdict {
    var isAccepted: Bool {
        if case .accepted = self { return true }
        return false
    }

    var rejection: PushRejection? {
        if case .rejected(let rejection) = self { return rejection }
        return nil
    }
}
