import APNs
import Crypto
import Foundation
import Vocabulary

/// A provider key the simulator trusts: the public half of a team's `.p8` key.
public struct RegisteredProviderKey: Sendable {
    public let keyID: String
    public let teamID: String
    let publicKey: P256.Signing.PublicKey

    public init(publicKeyPEM: String, keyID: String, teamID: String) throws(ProviderKeyRegistrationError) {
        guard !keyID.isEmpty else { throw .missingKeyID }
        guard !teamID.isEmpty else { throw .missingTeamID }
        do {
            publicKey = try P256.Signing.PublicKey(pemRepresentation: publicKeyPEM)
        } catch {
            throw .unreadablePublicKey
        }
        self.keyID = keyID
        self.teamID = teamID
    }
}

public enum ProviderKeyRegistrationError: Error, Hashable, Sendable, CustomStringConvertible {
    case unreadablePublicKey
    case missingKeyID
    case missingTeamID

    public var description: String {
        switch self {
        case .unreadablePublicKey: "the provider key is not a PEM P-256 public key"
        case .missingKeyID: "the provider key needs a key id"
        case .missingTeamID: "the provider key needs a team id"
        }
    }
}

/// What a valid provider token says.
public struct ProviderTokenClaims: Hashable, Sendable {
    public var keyID: String
    public var teamID: String
    /// `iat`, unix seconds.
    public var issuedAt: Int
}

/// What one connection remembers of the provider tokens it was sent: APNs ties the
/// key and the refresh rate to the connection, not to the team.
public struct ConnectionTokenState: Sendable {
    var firstKeyID: String?
    var latestIssuedAt: Int?
    /// Tokens already accepted here, so a repeated token skips the signature check.
    /// Several are kept because, while a client switches to a new token, requests
    /// signed with the old one are still in flight on the same connection.
    var acceptedTokens: [String: ProviderTokenClaims] = [:]

    public init() {}
}

/// The provider-token rules of APNs, in the order it applies them.
enum ProviderTokenCheck {
    /// ExpiredProviderToken after this many seconds.
    static let maximumAge = 60 * 60
    /// TooManyProviderTokenUpdates when a connection's token changes sooner than this.
    static let minimumRefreshInterval = 20 * 60
    static let rememberedTokensPerConnection = 4

    static func check(
        authorization: String?, keys: [String: RegisteredProviderKey], connection: inout ConnectionTokenState, now: Date
    ) throws(PushRejection) -> ProviderTokenClaims {
        guard let authorization else { throw PushRejection(.missingProviderToken) }
        let bearerPrefix = "bearer "
        guard authorization.count > bearerPrefix.count, authorization.prefix(bearerPrefix.count).lowercased() == bearerPrefix else {
            throw PushRejection(.invalidProviderToken)
        }
        let token = String(authorization.dropFirst(bearerPrefix.count))
        let nowSeconds = Int(now.timeIntervalSince1970.rounded(.down))

        if let known = connection.acceptedTokens[token] {
            guard nowSeconds - known.issuedAt <= maximumAge else { throw PushRejection(.expiredProviderToken) }
            return known
        }

        guard let claims = verifiedClaims(of: token, keys: keys) else { throw PushRejection(.invalidProviderToken) }
        guard nowSeconds - claims.issuedAt <= maximumAge else { throw PushRejection(.expiredProviderToken) }
        // Measured between the tokens' own `iat`s rather than by the simulator's clock,
        // so a client whose clock is injected (and jumps ahead in tests) is judged by
        // the times it claims, as it would be by tokens minted in real time.
        if let latest = connection.latestIssuedAt, claims.issuedAt - latest < minimumRefreshInterval {
            throw PushRejection(.tooManyProviderTokenUpdates)
        }
        if let firstKeyID = connection.firstKeyID, firstKeyID != claims.keyID {
            throw PushRejection(.unrelatedKeyIdInToken)
        }

        connection.firstKeyID = connection.firstKeyID ?? claims.keyID
        connection.latestIssuedAt = claims.issuedAt
        if connection.acceptedTokens.count >= rememberedTokensPerConnection,
           let oldest = connection.acceptedTokens.min(by: { $0.value.issuedAt < $1.value.issuedAt }) {
            connection.acceptedTokens[oldest.key] = nil
        }
        connection.acceptedTokens[token] = claims
        return claims
    }

    /// The claims of an ES256 JWT signed by a registered key for that key's team, or
    /// nil if anything about it is wrong (APNs answers all of that with one reason).
    static func verifiedClaims(of token: String, keys: [String: RegisteredProviderKey]) -> ProviderTokenClaims? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let headerData = Base64URL.decode(parts[0]), let claimsData = Base64URL.decode(parts[1]),
              let signatureData = Base64URL.decode(parts[2]),
              let header = try? JSONValue.parse(headerData), let body = try? JSONValue.parse(claimsData),
              header["alg"] == .string("ES256"),
              case .string(let keyID)? = header["kid"],
              case .string(let teamID)? = body["iss"],
              case .integer(let issuedAt)? = body["iat"],
              let key = keys[keyID], key.teamID == teamID,
              // JWS wants the raw 64-byte r||s, not DER.
              signatureData.count == 64,
              let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureData)
        else { return nil }
        let signingInput = Data(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard key.publicKey.isValidSignature(signature, for: signingInput),
              let issuedAtSeconds = Int(exactly: issuedAt)
        else { return nil }
        return ProviderTokenClaims(keyID: keyID, teamID: teamID, issuedAt: issuedAtSeconds)
    }
}
