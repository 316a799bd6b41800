import Crypto
import Foundation
import NIOConcurrencyHelpers
import PushVocabulary

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
///
/// A class under a lock, not an actor: every push reads the token, and a hop to
/// an actor and back per push was a measurable share of the sender's CPU. Signing
/// happens under the lock, so concurrent senders never sign two tokens at once.
public final class ProviderTokenCache: @unchecked Sendable {
    public static let ageLimits: ClosedRange<TimeInterval> = 20 * 60...60 * 60

    /// A token with the `authorization` header value made from it once.
    public struct Credential: Hashable, Sendable {
        public let token: String
        /// "bearer <token>".
        public let authorization: String
    }

    private let key: APNsSigningKey
    private let maximumAge: TimeInterval
    private let now: @Sendable () -> Date
    private let lock = NIOLock()
    // lock
    private var current: (credential: Credential, issuedAt: Date)?
    private var issued = 0

    /// - Parameter maximumAge: refresh after this many seconds, clamped to 20…60 minutes.
    public init(key: APNsSigningKey, maximumAge: TimeInterval = 50 * 60, now: @escaping @Sendable () -> Date = Date.init) {
        self.key = key
        self.maximumAge = min(max(maximumAge, Self.ageLimits.lowerBound), Self.ageLimits.upperBound - 60)
        self.now = now
    }

    public var tokensIssued: Int { lock.withLock { issued } }

    public func token() -> String { credential().token }

    public func credential() -> Credential {
        let time = now()
        return lock.withLock {
            if let current, time.timeIntervalSince(current.issuedAt) < maximumAge { return current.credential }
            return issueLocked(at: time)
        }
    }

    /// After APNs answered ExpiredProviderToken for `token`: a new one, unless the
    /// current one is younger than 20 minutes (then APNs would refuse the refresh,
    /// and the clock, not the token, is the problem). Returns nil then.
    public func refresh(after rejected: String) -> String? { refreshCredential(after: rejected)?.token }

    public func refreshCredential(after rejected: String) -> Credential? {
        let time = now()
        return lock.withLock {
            guard let current else { return issueLocked(at: time) }
            if current.credential.token != rejected { return current.credential }
            guard time.timeIntervalSince(current.issuedAt) >= Self.ageLimits.lowerBound else { return nil }
            return issueLocked(at: time)
        }
    }

    private func issueLocked(at time: Date) -> Credential {
        let issuedAt = Int(time.timeIntervalSince1970)
        let token = JWT.es256(key: key, issuedAt: issuedAt)
        let credential = Credential(token: token, authorization: "bearer " + token)
        current = (credential, Date(timeIntervalSince1970: TimeInterval(issuedAt)))
        issued += 1
        return credential
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
