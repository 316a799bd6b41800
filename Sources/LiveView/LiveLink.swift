import Crypto
import Foundation
import Vocabulary

/// What a live-page link lets its holder see: one adventure, until a moment, on
/// behalf of whoever asked for the link (checked again when the link is used, so a
/// player who left the party loses the page with the party).
public struct LiveLinkGrant: Hashable, Sendable {
    public enum Viewer: Hashable, Sendable {
        case gameMaster
        case player(PlayerID)
    }

    public var adventure: AdventureID
    /// Unix seconds; the link is refused from then on.
    public var expiresAt: Int
    public var viewer: Viewer

    public init(adventure: AdventureID, expiresAt: Int, viewer: Viewer) {
        self.adventure = adventure
        self.expiresAt = expiresAt
        self.viewer = viewer
    }

    /// How long a link may be asked to last: a page is opened from it (and reopened
    /// after a restart) within this time; a leaked link is worthless after it.
    public static let lifetimes = 60...86_400
    public static let defaultLifetime = 3600
}

/// Why a link shows nothing. The first three are 401s (the link proves nothing),
/// the last a 403 (a real link, for another adventure).
public enum LiveLinkRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    case malformed
    case forged
    case expired(at: Int)
    case otherAdventure

    public var description: String {
        switch self {
        case .malformed: "the link's token is not one this server issues"
        case .forged: "the link's token is not signed by this server"
        case .expired(let at): "the link expired at \(Date(timeIntervalSince1970: TimeInterval(at)).formatted(.iso8601)); ask for a new one"
        case .otherAdventure: "the link is for another adventure"
        }
    }
}

/// Signs and checks live-page links: `<payload>.<mac>`, both base64url, the MAC an
/// HMAC-SHA256 of the payload (the version, the adventure, the expiry and the
/// viewer) with the server's secret. Nothing is stored: any node with the same
/// secret checks any node's link. The secret never leaves this type.
public struct LiveLinkSigner: Sendable {
    private let key: SymmetricKey

    /// Shorter secrets could be guessed offline from one link.
    public static let shortestSecret = 32

    public init(secret: String) {
        key = SymmetricKey(data: SHA256.hash(data: Data("rangers live links\n\(secret)".utf8)))
    }

    /// A secret of this process alone: its links end with it.
    public static func generated() -> LiveLinkSigner {
        var generator = SystemRandomNumberGenerator()
        return LiveLinkSigner(secret: (0..<32).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }
            .joined())
    }

    public func token(for grant: LiveLinkGrant) -> String {
        let viewer = switch grant.viewer {
        case .gameMaster: "gm"
        case .player(let id): "player:\(id.rawValue)"
        }
        let payload = Data("v1|\(grant.adventure.rawValue)|\(grant.expiresAt)|\(viewer)".utf8)
        return Base64URL.encode(payload) + "." + Base64URL.encode(Data(HMAC<SHA256>.authenticationCode(for: payload, using: key)))
    }

    /// The grant `token` carries, if this server signed it, it has not expired at
    /// `now` (unix seconds) and it is for `adventure`. The signature is checked
    /// before anything the token says is believed.
    public func grant(from token: String, for adventure: AdventureID, at now: Int) throws(LiveLinkRefusal) -> LiveLinkGrant {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard token.utf8.count <= 1024, parts.count == 2, let payload = Base64URL.decode(parts[0]),
              let mac = Base64URL.decode(parts[1]) else { throw .malformed }
        guard HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: payload, using: key) else { throw .forged }
        let fields = String(decoding: payload, as: UTF8.self).split(separator: "|", maxSplits: 3, omittingEmptySubsequences: false)
        guard fields.count == 4, fields[0] == "v1", let expiresAt = Int(fields[2]) else { throw .malformed }
        let viewer: LiveLinkGrant.Viewer
        if fields[3] == "gm" {
            viewer = .gameMaster
        } else if fields[3].hasPrefix("player:") {
            viewer = .player(PlayerID(String(fields[3].dropFirst("player:".count))))
        } else {
            throw .malformed
        }
        guard now < expiresAt else { throw .expired(at: expiresAt) }
        guard fields[1] == adventure.rawValue else { throw .otherAdventure }
        return LiveLinkGrant(adventure: adventure, expiresAt: expiresAt, viewer: viewer)
    }
}
