import APNs
import APNsSimulator
import Crypto
import Foundation
import Vocabulary

/// A team's provider key, and JWTs signed with it in the format of `JWT.es256` in
/// the APNs module (which is internal there): any header and claims can be signed,
/// so the checks can be shown wrong tokens that are correctly signed.
struct ProviderFixture: Sendable {
    let keyID: String
    let teamID: String
    let signingKey: APNsSigningKey
    let privateKey: P256.Signing.PrivateKey

    init(keyID: String = "KEY1234567", teamID: String = "TEAM123456") {
        let (key, pem) = APNsSigningKey.generate(keyID: keyID, teamID: teamID)
        self.keyID = keyID
        self.teamID = teamID
        signingKey = key
        privateKey = try! P256.Signing.PrivateKey(pemRepresentation: pem)
    }

    var publicKeyPEM: String { signingKey.publicKeyPEM }

    func registered() throws -> RegisteredProviderKey {
        try RegisteredProviderKey(publicKeyPEM: publicKeyPEM, keyID: keyID, teamID: teamID)
    }

    func token(issuedAt: Date, teamID: String? = nil, keyID: String? = nil) -> String {
        signed(header: #"{"alg":"ES256","kid":"\#(keyID ?? self.keyID)"}"#,
               claims: #"{"iss":"\#(teamID ?? self.teamID)","iat":\#(Int(issuedAt.timeIntervalSince1970))}"#)
    }

    func signed(header: String, claims: String) -> String {
        let input = Self.base64URL(Data(header.utf8)) + "." + Self.base64URL(Data(claims.utf8))
        let signature = try! privateKey.signature(for: Data(input.utf8)).rawRepresentation
        return input + "." + Self.base64URL(signature)
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

enum Fixtures {
    static let bundleID = "com.example.apple-samplecode.Emoji-Rangers"
    static let deviceToken = String(repeating: "a1b2", count: 16)
    /// The clock the pure checks are run at.
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    static let provider = ProviderFixture()

    static let liveActivityUpdate = #"""
    {"aps":{"timestamp":1700000000,"event":"update","content-state":{"currentHealthLevel":0.5,"eventDescription":"Power Panda is hit!"},"stale-date":1700000060,"relevance-score":100}}
    """#
    static let liveActivityStart = #"""
    {"aps":{"timestamp":1700000000,"event":"start","attributes-type":"AdventureAttributes","attributes":{"hero":{"name":"Power Panda"}},"content-state":{"currentHealthLevel":1.0,"eventDescription":"Adventure started!"},"alert":{"title":{"loc-key":"%@ is on an adventure!","loc-args":["Power Panda"]},"body":"Let's go","sound":"Start.caf"}}}
    """#
    static let liveActivityEnd = #"""
    {"aps":{"timestamp":1700000100,"event":"end","content-state":{"currentHealthLevel":0.0,"eventDescription":"Adventure over"},"dismissal-date":1700000400}}
    """#
    static let pushToTalk = #"{"aps":{},"activeSpeaker":"Power Panda"}"#
    static let alert = #"{"aps":{"alert":{"title":"Emoji Rangers","body":"A new adventure awaits"}}}"#

    static func headers(_ pushType: PushType, token: String, priority: String? = nil) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [
            ("authorization", "bearer \(token)"),
            ("apns-push-type", pushType.rawValue),
            ("apns-topic", pushType.topic(bundleID: bundleID).rawValue),
        ]
        switch pushType {
        case .pushtotalk:
            headers += [("apns-priority", priority ?? "10"), ("apns-expiration", "0")]
        default:
            headers.append(("apns-priority", priority ?? "10"))
        }
        return headers
    }

    /// A request that passes every check, signed by `provider` at `now`.
    static func request(_ pushType: PushType, payload: String, token: String? = nil) -> IncomingPushRequest {
        IncomingPushRequest(method: "POST", path: "/3/device/\(deviceToken)",
                            headers: headers(pushType, token: token ?? provider.token(issuedAt: now)), body: Data(payload.utf8))
    }

    static var rules: PushRequestRules {
        PushRequestRules(providerKeys: [try! provider.registered()])
    }
}

extension IncomingPushRequest {
    mutating func setHeader(_ name: String, _ value: String?) {
        let index = headers.firstIndex { $0.name == name }
        switch (index, value) {
        case (let index?, let value?): headers[index].value = value
        case (let index?, nil): headers.remove(at: index)
        case (nil, let value?): headers.append((name, value))
        case (nil, nil): break
        }
    }
}
