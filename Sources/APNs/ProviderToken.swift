import Crypto
import Foundation
import Vocabulary

/// The `.p8` key APNs gave the team: PKCS#8 PEM, P-256. It signs provider tokens
/// and is never printed (its description is redacted).
public struct APNsSigningKey: Sendable, CustomStringConvertible {
    public let keyID: String
    public let teamID: String
    let privateKey: P256.Signing.PrivateKey

    public init(pem: String, keyID: String, teamID: String) throws(APNsKeyError) {
        guard !keyID.isEmpty else { throw .missingKeyID }
        guard !teamID.isEmpty else { throw .missingTeamID }
        do {
            privateKey = try P256.Signing.PrivateKey(pemRepresentation: pem)
        } catch {
            throw .unreadableKey
        }
        self.keyID = keyID
        self.teamID = teamID
    }

    public init(contentsOf file: URL, keyID: String, teamID: String) throws(APNsKeyError) {
        guard let pem = try? String(contentsOf: file, encoding: .utf8) else { throw .unreadableFile(file.path) }
        try self.init(pem: pem, keyID: keyID, teamID: teamID)
    }

    /// The public half, as a PEM: what APNs (or the simulator) verifies with.
    public var publicKeyPEM: String { privateKey.publicKey.pemRepresentation }

    public var description: String { "APNsSigningKey(keyID: \(keyID), teamID: \(teamID), key: <redacted>)" }

    /// A new random key, for the simulator and tests.
    public static func generate(keyID: String, teamID: String) -> (key: APNsSigningKey, pem: String) {
        let key = P256.Signing.PrivateKey()
        return (try! APNsSigningKey(pem: key.pemRepresentation, keyID: keyID, teamID: teamID), key.pemRepresentation)
    }
}

public enum APNsKeyError: Error, Hashable, Sendable, CustomStringConvertible {
    case unreadableFile(String)
    case unreadableKey
    case missingKeyID
    case missingTeamID

    public var description: String {
        switch self {
        case .unreadableFile(let path): "cannot read the key file \(path)"
        case .unreadableKey: "the key is not a PKCS#8 PEM P-256 private key (an APNs .p8 file)"
        case .missingKeyID: "the key id is missing"
        case .missingTeamID: "the team id is missing"
        }
    }
}

/// Provider tokens (JWT, ES256) for the `authorization: bearer` header, reused
/// until they are `maximumAge` old. APNs refuses tokens older than an hour
/// (ExpiredProviderToken) and refreshes more often than every 20 minutes
/// (TooManyProviderTokenUpdates), so the age is kept within 20…60 minutes.
public actor ProviderTokenCache {
    public static let ageLimits: ClosedRange<TimeInterval> = 20 * 60...60 * 60

    private let key: APNsSigningKey
    private let maximumAge: TimeInterval
    private let now: @Sendable () -> Date
    private var current: (token: String, issuedAt: Date)?
    public private(set) var tokensIssued = 0

    /// - Parameter maximumAge: refresh after this many seconds, clamped to 20…60 minutes.
    public init(key: APNsSigningKey, maximumAge: TimeInterval = 50 * 60, now: @escaping @Sendable () -> Date = Date.init) {
        self.key = key
        self.maximumAge = min(max(maximumAge, Self.ageLimits.lowerBound), Self.ageLimits.upperBound - 60)
        self.now = now
    }

    public func token() -> String {
        let time = now()
        if let current, time.timeIntervalSince(current.issuedAt) < maximumAge { return current.token }
        return issue(at: time)
    }

    /// After APNs answered ExpiredProviderToken for `token`: a new one, unless the
    /// current one is younger than 20 minutes (then APNs would refuse the refresh,
    /// and the clock, not the token, is the problem). Returns nil then.
    public func refresh(after rejected: String) -> String? {
        let time = now()
        guard let current else { return issue(at: time) }
        if current.token != rejected { return current.token }
        guard time.timeIntervalSince(current.issuedAt) >= Self.ageLimits.lowerBound else { return nil }
        return issue(at: time)
    }

    private func issue(at time: Date) -> String {
        let issuedAt = Int(time.timeIntervalSince1970)
        let token = JWT.es256(key: key, issuedAt: issuedAt)
        current = (token, Date(timeIntervalSince1970: TimeInterval(issuedAt)))
        tokensIssued += 1
        return token
    }
}

enum JWT {
    static func es256(key: APNsSigningKey, issuedAt: Int) -> String {
        // Fixed key order keeps tokens byte-comparable in tests.
        let header = #"{"alg":"ES256","kid":"\#(key.keyID)"}"#
        let claims = #"{"iss":"\#(key.teamID)","iat":\#(issuedAt)}"#
        let signingInput = Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(Data(claims.utf8))
        // ECDSA signatures are randomized; raw r||s (64 bytes) is what JWS wants, not DER.
        let signature = try! key.privateKey.signature(for: Data(signingInput.utf8)).rawRepresentation
        return signingInput + "." + Base64URL.encode(signature)
    }

}
