import APNs
import APNsSimulator
import Foundation
import Testing

@Suite("Provider token checks")
struct ProviderTokenChecksTests {
    let provider = Fixtures.provider

    private func verdict(token: String, at now: Date = Fixtures.now, connection: inout ConnectionTokenState,
                         rules: PushRequestRules = Fixtures.rules) -> PushVerdict {
        PushRequestChecks.verdict(for: Fixtures.request(.liveactivity, payload: Fixtures.liveActivityUpdate, token: token),
                                  rules: rules, connection: &connection, now: now)
    }

    private func reason(token: String, at now: Date = Fixtures.now, rules: PushRequestRules = Fixtures.rules) -> String? {
        var connection = ConnectionTokenState()
        return verdict(token: token, at: now, connection: &connection, rules: rules).rejection?.reason.description
    }

    static let malformed: [String] = [
        "",
        "abc",
        "a.b",
        "a.b.c.d",
        "!!!.???.###",
    ]

    @Test(arguments: malformed)
    func malformedTokenIsInvalid(_ token: String) {
        #expect(reason(token: token) == "InvalidProviderToken")
    }

    @Test func tokenMintedByTheAPNsModuleIsAccepted() async {
        let cache = ProviderTokenCache(key: provider.signingKey, now: { Fixtures.now })
        let token = cache.token()
        #expect(reason(token: token) == nil)
    }

    @Test func schemeOtherThanBearerIsInvalid() {
        var request = Fixtures.request(.liveactivity, payload: Fixtures.liveActivityUpdate)
        request.setHeader("authorization", "Basic " + provider.token(issuedAt: Fixtures.now))
        var connection = ConnectionTokenState()
        let verdict = PushRequestChecks.verdict(for: request, rules: Fixtures.rules, connection: &connection, now: Fixtures.now)
        #expect(verdict.rejection?.reason == .invalidProviderToken)
        #expect(verdict.rejection?.status == 403)
    }

    @Test func correctlySignedButWrongTokensAreInvalid() {
        let iat = Int(Fixtures.now.timeIntervalSince1970)
        let wrong: [String: String] = [
            "HS256 header": provider.signed(header: #"{"alg":"HS256","kid":"\#(provider.keyID)"}"#, claims: #"{"iss":"\#(provider.teamID)","iat":\#(iat)}"#),
            "no kid": provider.signed(header: #"{"alg":"ES256"}"#, claims: #"{"iss":"\#(provider.teamID)","iat":\#(iat)}"#),
            "no iat": provider.signed(header: #"{"alg":"ES256","kid":"\#(provider.keyID)"}"#, claims: #"{"iss":"\#(provider.teamID)"}"#),
            "iat as a string": provider.signed(header: #"{"alg":"ES256","kid":"\#(provider.keyID)"}"#, claims: #"{"iss":"\#(provider.teamID)","iat":"\#(iat)"}"#),
            "unknown kid": provider.token(issuedAt: Fixtures.now, keyID: "UNKNOWN123"),
            "iss of another team": provider.token(issuedAt: Fixtures.now, teamID: "OTHERTEAM1"),
        ]
        for (name, token) in wrong {
            #expect(reason(token: token) == "InvalidProviderToken", "\(name)")
        }
    }

    @Test func signatureOfAnotherKeyIsInvalid() {
        let impostor = ProviderFixture(keyID: provider.keyID, teamID: provider.teamID)
        #expect(reason(token: impostor.token(issuedAt: Fixtures.now)) == "InvalidProviderToken")
    }

    @Test func tamperedClaimsAreInvalid() {
        let token = provider.token(issuedAt: Fixtures.now)
        let parts = token.split(separator: ".").map(String.init)
        let laterClaims = ProviderFixture.base64URL(Data(#"{"iss":"\#(provider.teamID)","iat":\#(Int(Fixtures.now.timeIntervalSince1970) + 1)}"#.utf8))
        #expect(reason(token: [parts[0], laterClaims, parts[2]].joined(separator: ".")) == "InvalidProviderToken")
        // A DER signature instead of raw r||s.
        let der = ProviderFixture.base64URL(try! provider.privateKey.signature(for: Data((parts[0] + "." + parts[1]).utf8)).derRepresentation)
        #expect(reason(token: [parts[0], parts[1], der].joined(separator: ".")) == "InvalidProviderToken")
    }

    @Test func tokenOlderThanAnHourHasExpired() {
        #expect(reason(token: provider.token(issuedAt: Fixtures.now.addingTimeInterval(-3601))) == "ExpiredProviderToken")
        #expect(reason(token: provider.token(issuedAt: Fixtures.now.addingTimeInterval(-3600))) == nil)
    }

    @Test func reusedTokenExpiresOnTheSameConnection() {
        var connection = ConnectionTokenState()
        let token = provider.token(issuedAt: Fixtures.now)
        #expect(verdict(token: token, connection: &connection).isAccepted)
        #expect(verdict(token: token, at: Fixtures.now.addingTimeInterval(3000), connection: &connection).isAccepted)
        #expect(verdict(token: token, at: Fixtures.now.addingTimeInterval(3601), connection: &connection).rejection?.reason
            == .expiredProviderToken)
    }

    @Test func newTokenWithinTwentyMinutesIsTooManyUpdates() {
        var connection = ConnectionTokenState()
        let firstToken = provider.token(issuedAt: Fixtures.now)
        #expect(verdict(token: firstToken, connection: &connection).isAccepted)
        let early = Fixtures.now.addingTimeInterval(19 * 60)
        let rejection = verdict(token: provider.token(issuedAt: early), at: early, connection: &connection).rejection
        #expect(rejection?.status == 429)
        #expect(rejection?.reason == .tooManyProviderTokenUpdates)

        let later = Fixtures.now.addingTimeInterval(20 * 60)
        #expect(verdict(token: provider.token(issuedAt: later), at: later, connection: &connection).isAccepted)
        // Requests signed with the previous token may still be in flight: still fine.
        #expect(verdict(token: firstToken, at: later, connection: &connection).isAccepted)
    }

    @Test func newTokenOnAFreshConnectionIsNotAnUpdate() {
        var first = ConnectionTokenState()
        var second = ConnectionTokenState()
        #expect(verdict(token: provider.token(issuedAt: Fixtures.now), connection: &first).isAccepted)
        let soon = Fixtures.now.addingTimeInterval(60)
        #expect(verdict(token: provider.token(issuedAt: soon), at: soon, connection: &second).isAccepted)
    }

    @Test func keyOtherThanTheConnectionsFirstIsUnrelated() throws {
        let other = ProviderFixture(keyID: "KEY7654321", teamID: provider.teamID)
        let rules = PushRequestRules(providerKeys: [try provider.registered(), try other.registered()])
        var connection = ConnectionTokenState()
        #expect(verdict(token: provider.token(issuedAt: Fixtures.now), connection: &connection, rules: rules).isAccepted)
        let later = Fixtures.now.addingTimeInterval(30 * 60)
        let rejection = verdict(token: other.token(issuedAt: later), at: later, connection: &connection, rules: rules).rejection
        #expect(rejection?.status == 403)
        #expect(rejection?.reason == .unrelatedKeyIdInToken)
    }

    @Test func registeringAnUnreadableKeyFailsClearly() {
        #expect(throws: ProviderKeyRegistrationError.unreadablePublicKey) {
            try RegisteredProviderKey(publicKeyPEM: "not a key", keyID: "K", teamID: "T")
        }
        #expect(throws: ProviderKeyRegistrationError.missingKeyID) {
            try RegisteredProviderKey(publicKeyPEM: provider.publicKeyPEM, keyID: "", teamID: "T")
        }
    }
}
