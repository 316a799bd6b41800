@testable import APNs
import Crypto
import Foundation
import Testing

@Suite struct APNsReasonTests {
    /// The spec's table: every reason with its status.
    static let specification: [(String, Int)] = [
        ("BadCollapseId", 400), ("BadDeviceToken", 400), ("BadExpirationDate", 400), ("BadMessageId", 400),
        ("BadPriority", 400), ("BadTopic", 400), ("DeviceTokenNotForTopic", 400), ("DuplicateHeaders", 400),
        ("IdleTimeout", 400), ("InvalidPushType", 400), ("MissingDeviceToken", 400), ("MissingTopic", 400),
        ("PayloadEmpty", 400), ("TopicDisallowed", 400),
        // Broadcasts and channel management (docs/apns.md)
        ("FeatureNotEnabled", 400), ("MissingChannelId", 400), ("BadChannelId", 400), ("ChannelNotRegistered", 400),
        ("BadRequestParams", 400), ("BadRequestPayload", 400), ("MissingPushType", 400), ("CannotCreateChannelConfig", 400),
        ("TopicMismatch", 403),
        ("BadCertificate", 403), ("BadCertificateEnvironment", 403), ("ExpiredProviderToken", 403), ("Forbidden", 403),
        ("InvalidProviderToken", 403), ("MissingProviderToken", 403), ("UnrelatedKeyIdInToken", 403),
        ("BadEnvironmentKeyIdInToken", 403), ("BadPath", 404), ("MethodNotAllowed", 405), ("ExpiredToken", 410),
        ("Unregistered", 410), ("PayloadTooLarge", 413), ("TooManyProviderTokenUpdates", 429), ("TooManyRequests", 429),
        ("InternalServerError", 500), ("ServiceUnavailable", 503), ("Shutdown", 503),
    ]

    @Test func everyReasonParsesWithItsStatus() {
        for (name, status) in Self.specification {
            let reason = APNsReason(name)
            #expect(reason.description == name)
            #expect(reason.status == status, "\(name)")
            if case .unknown = reason { Issue.record("\(name) should be known") }
        }
        #expect(APNsReason.known.count == Self.specification.count)
        #expect(APNsReason("SomethingNew") == .unknown("SomethingNew"))
    }

    @Test(arguments: [
        (200, #""#, "delivered"),
        (410, #"{"reason":"Unregistered","timestamp":1700000000000}"#, "token"),
        (410, #"{"reason":"ExpiredToken"}"#, "token"),
        (400, #"{"reason":"BadDeviceToken"}"#, "token"),
        (400, #"{"reason":"DeviceTokenNotForTopic"}"#, "token"),
        (400, #"{"reason":"BadPriority"}"#, "rejected"),
        (403, #"{"reason":"Forbidden"}"#, "rejected"),
        (403, #"{"reason":"ExpiredProviderToken"}"#, "rejected"),
        (413, #"{"reason":"PayloadTooLarge"}"#, "rejected"),
        (429, #"{"reason":"TooManyRequests"}"#, "retry"),
        (429, #"{"reason":"TooManyProviderTokenUpdates"}"#, "rejected"),
        (500, #"{"reason":"InternalServerError"}"#, "retry"),
        (503, #"{"reason":"ServiceUnavailable"}"#, "retry"),
        (503, #"{"reason":"Shutdown"}"#, "retry"),
        (502, "<html>bad gateway</html>", "retry"),
        (400, #"{"reason":"NewReasonFromApple"}"#, "rejected"),
    ])
    func answersAreClassified(status: Int, body: String, expected: String) {
        let outcome = APNsResponse(APNsHTTPResponse(status: status, headers: [:], body: Data(body.utf8))).outcome
        let kind = switch outcome {
        case .delivered: "delivered"
        case .tokenNoLongerValid: "token"
        case .retryLater: "retry"
        case .rejected: "rejected"
        }
        #expect(kind == expected, "\(status) \(body)")
    }

    @Test func unregisteredKeepsItsTimestampAndSuccessKeepsItsIDs() {
        let gone = APNsResponse(APNsHTTPResponse(status: 410, headers: [:],
                                                 body: Data(#"{"reason":"Unregistered","timestamp":1700000000123}"#.utf8)))
        #expect(gone.outcome == .tokenNoLongerValid(.unregistered, since: Date(timeIntervalSince1970: 1_700_000_000.123)))
        let ok = APNsResponse(APNsHTTPResponse(status: 200, headers: ["apns-id": "abc", "apns-unique-id": "u-1"], body: Data()))
        #expect(ok.apnsID == "abc")
        #expect(ok.uniqueID == "u-1")
        #expect(ok.outcome == .delivered(apnsID: "abc"))
    }
}

@Suite struct APNsRequestTests {
    @Test func pushToTalkHasItsFixedHeaders() throws {
        let request = APNsRequest.pushToTalk(deviceToken: token64, bundleID: "com.example.app", payload: Data("{}".utf8))
        #expect(request.topic == "com.example.app.voip-ptt")
        #expect(request.priority == 10)
        #expect(request.expiration == 0)
        #expect(request.pushType == .pushtotalk)
        try request.validate()
    }

    @Test func liveActivityTopic() {
        let request = APNsRequest.liveActivity(deviceToken: token64, bundleID: "com.example.app", priority: 5, payload: Data("{}".utf8))
        #expect(request.topic == "com.example.app.push-type.liveactivity")
    }

    @Test(arguments: [
        ("abc", false), (String(repeating: "a", count: 15), false), (String(repeating: "0", count: 16), true),
        (String(repeating: "AB", count: 32), true), (String(repeating: "zz", count: 32), false),
        (String(repeating: "ab", count: 100), true), (String(repeating: "ab", count: 257), false), ("", false),
    ])
    func tokensOfAnyEvenHexLengthWithinBounds(token: String, valid: Bool) {
        let request = APNsRequest.alert(deviceToken: token, bundleID: "com.example.app", payload: Data("{}".utf8))
        #expect((try? request.validate()) != nil ? valid : !valid, "\(token.count) characters")
    }

    @Test func payloadLimitsDependOnPushType() throws {
        let big = Data(repeating: 0x20, count: 4097)
        #expect(throws: APNsRequestError.payloadTooLarge(bytes: 4097, limit: 4096)) {
            try APNsRequest.liveActivity(deviceToken: token64, bundleID: "b", priority: 10, payload: big).validate()
        }
        try APNsRequest.pushToTalk(deviceToken: token64, bundleID: "b", payload: big).validate()
        #expect(throws: APNsRequestError.payloadEmpty) {
            try APNsRequest.alert(deviceToken: token64, bundleID: "b", payload: Data()).validate()
        }
    }

    @Test func wrongPriorityAndTopicAreCaughtBeforeSending() {
        var request = APNsRequest.liveActivity(deviceToken: token64, bundleID: "b", priority: 7, payload: Data("{}".utf8))
        #expect(throws: APNsRequestError.badPriority(7)) { try request.validate() }
        request.priority = 10
        request.topic = "b"
        #expect(throws: APNsRequestError.badTopic("b", .liveactivity)) { try request.validate() }
    }
}

@Suite struct ProviderTokenTests {
    func decode(_ part: Substring) throws -> [String: Any] {
        var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        let data = try #require(Data(base64Encoded: base64))
        return try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func tokenIsAnES256JWTThatVerifiesWithThePublicKey() async throws {
        let clock = TestClock()
        let cache = ProviderTokenCache(key: Keys.signing, now: { clock.now })
        let token = cache.token()
        let parts = token.split(separator: ".")
        #expect(parts.count == 3)
        #expect(!token.contains("="))
        let header = try decode(parts[0])
        #expect(header["alg"] as? String == "ES256")
        #expect(header["kid"] as? String == "KEY1234567")
        let claims = try decode(parts[1])
        #expect(claims["iss"] as? String == "TEAM123456")
        #expect(claims["iat"] as? Int == 1_767_225_600)

        var signature = String(parts[2]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        signature += String(repeating: "=", count: (4 - signature.count % 4) % 4)
        let raw = try #require(Data(base64Encoded: signature))
        #expect(raw.count == 64)
        let publicKey = try P256.Signing.PublicKey(pemRepresentation: Keys.signing.publicKeyPEM)
        let ecdsa = try P256.Signing.ECDSASignature(rawRepresentation: raw)
        #expect(publicKey.isValidSignature(ecdsa, for: Data("\(parts[0]).\(parts[1])".utf8)))
        #expect(!publicKey.isValidSignature(ecdsa, for: Data("\(parts[0]).x".utf8)))
    }

    @Test func tokenIsReusedUntilItsAgeThenRenewed() async {
        let clock = TestClock()
        let cache = ProviderTokenCache(key: Keys.signing, maximumAge: 50 * 60, now: { clock.now })
        let first = cache.token()
        clock.advance(minutes: 49)
        #expect(cache.token() == first)
        clock.advance(minutes: 1)
        let second = cache.token()
        #expect(second != first)
        #expect(cache.tokensIssued == 2)
    }

    @Test func ageIsClampedToTwentyToSixtyMinutes() async {
        let clock = TestClock()
        let eager = ProviderTokenCache(key: Keys.signing, maximumAge: 60, now: { clock.now })
        let first = eager.token()
        clock.advance(minutes: 19)
        #expect(eager.token() == first)
        let lazy = ProviderTokenCache(key: Keys.signing, maximumAge: 3 * 3600, now: { clock.now })
        let old = lazy.token()
        clock.advance(minutes: 60)
        #expect(lazy.token() != old)
    }

    @Test func expiredTokenIsRenewedOnlyIfTwentyMinutesOld() async {
        let clock = TestClock()
        let cache = ProviderTokenCache(key: Keys.signing, now: { clock.now })
        let first = cache.token()
        clock.advance(minutes: 5)
        #expect(cache.refresh(after: first) == nil)
        clock.advance(minutes: 15)
        let renewed = cache.refresh(after: first)
        #expect(renewed != nil && renewed != first)
        // A second report about the old token gets the current one, not yet another.
        #expect(cache.refresh(after: first) == renewed)
    }

    @Test func keyErrorsAreClearAndTheKeyIsNeverPrinted() {
        #expect(throws: APNsKeyError.unreadableKey) { try APNsSigningKey(pem: "not a key", keyID: "K", teamID: "T") }
        #expect(throws: APNsKeyError.missingKeyID) { try APNsSigningKey(pem: "x", keyID: "", teamID: "T") }
        #expect(throws: APNsKeyError.unreadableFile("/nonexistent.p8")) {
            try APNsSigningKey(contentsOf: URL(fileURLWithPath: "/nonexistent.p8"), keyID: "K", teamID: "T")
        }
        let (key, pem) = APNsSigningKey.generate(keyID: "K", teamID: "T")
        let body = pem.split(separator: "\n").dropFirst().first.map(String.init) ?? "?"
        #expect(!"\(key)".contains(body))
        #expect("\(key)".contains("<redacted>"))
    }
}

@Test func generatedAPNsIDsAreDistinctVersion4UUIDs() {
    let source = APNsIDSource(), other = APNsIDSource()
    let ids = (0..<10_000).map { _ in source.next() }
    #expect(Set(ids).count == ids.count)
    // Another process (another pair of keys) does not repeat this one's ids.
    #expect(Set(ids).isDisjoint(with: (0..<10_000).map { _ in other.next() }))
    for id in ids.prefix(200) {
        let text = APNsIDSource.lowercasedText(id)
        #expect(text == id.uuidString.lowercased())
        #expect(Array(text)[14] == "4", "\(text)")
        #expect("89ab".contains(Array(text)[19]), "\(text)")
    }
}
