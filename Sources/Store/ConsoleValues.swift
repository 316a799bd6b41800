import Crypto
import Foundation
import Vocabulary

/// The game master's signed-in console session as the store keeps it. The
/// browser holds the secret; the store holds only its SHA-256, so a copy of the
/// database signs no one in.
public struct ConsoleSession: Hashable, Sendable {
    /// SHA-256 of the secret in the browser's cookie.
    public var secretHash: Data
    /// Names the session in the audit trail and on pages; proves nothing.
    public var reference: ConsoleSessionReference
    /// What every form of this session carries back.
    public var csrfToken: String
    /// Unix seconds.
    public var createdAt: Int
    public var expiresAt: Int

    public init(secretHash: Data, reference: ConsoleSessionReference, csrfToken: String, createdAt: Int, expiresAt: Int) {
        self.secretHash = secretHash
        self.reference = reference
        self.csrfToken = csrfToken
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// A session's public name (`s-` and 16 hex digits): safe to show and to keep
/// in the audit trail, unlike the secret.
public struct ConsoleSessionReference: StringIdentifier {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// What the console did or refused, as the audit trail records it.
public enum ConsoleAction: String, Hashable, Sendable, CaseIterable {
    case signIn
    case signInRefused
    case signOut
    case startAdventure
    case endAdventure
    case closeWalkieTalkie
}

public struct NewConsoleAuditEntry: Hashable, Sendable {
    public var action: ConsoleAction
    public var session: ConsoleSessionReference?
    /// The client's address, as the abuse limits see it.
    public var client: String
    /// What it was about (an adventure, why a sign-in was refused); never a key.
    public var detail: String

    public init(action: ConsoleAction, session: ConsoleSessionReference?, client: String, detail: String) {
        self.action = action
        self.session = session
        self.client = String(client.prefix(ConsoleRules.longestAuditText))
        self.detail = String(detail.prefix(ConsoleRules.longestAuditText))
    }
}

public struct ConsoleAuditEntry: Hashable, Sendable {
    /// Increases with each entry: the audit page's paging key.
    public var id: Int64
    /// Unix seconds.
    public var at: Int
    public var action: ConsoleAction
    public var session: ConsoleSessionReference?
    public var client: String
    public var detail: String

    public init(id: Int64, at: Int, action: ConsoleAction, session: ConsoleSessionReference?, client: String, detail: String) {
        self.id = id
        self.at = at
        self.action = action
        self.session = session
        self.client = client
        self.detail = detail
    }
}

/// What both engines and the server decide the same way about console sessions.
public enum ConsoleRules {
    /// A session ends this long after sign-in, on every node, whatever the cookie says.
    public static let sessionLifetime = 8 * 3600
    public static let longestAuditText = 200
    public static let secretPrefix = "cs_"
    /// 32 bytes in base64url without padding, as `APIKey`.
    static let encodedSecretLength = 43

    /// A new session at `now`: the secret for the cookie, and what the store keeps.
    public static func newSession(at now: Date) -> (secret: String, session: ConsoleSession) {
        let secret = secretPrefix + Base64URL.encode(randomBytes(32))
        let reference = ConsoleSessionReference("s-" + randomBytes(8).map { String(format: "%02x", $0) }.joined())
        let created = second(now)
        return (secret, ConsoleSession(secretHash: hash(secret), reference: reference, csrfToken: Base64URL.encode(randomBytes(32)),
                                       createdAt: created, expiresAt: created + sessionLifetime))
    }

    /// Nil for anything that cannot be a session's secret, so a forged cookie costs no query.
    public static func hash(ofPresented secret: String) -> Data? {
        guard secret.hasPrefix(secretPrefix), secret.utf8.count == secretPrefix.utf8.count + encodedSecretLength else { return nil }
        return hash(secret)
    }

    public static func isCurrent(_ session: ConsoleSession, at now: Date) -> Bool {
        second(now) < session.expiresAt
    }

    /// A form's token against the session's, in constant time.
    public static func csrfMatches(_ presented: String?, _ session: ConsoleSession) -> Bool {
        tokensMatch(session.csrfToken, presented)
    }

    /// Two tokens, compared in constant time; a missing or empty one matches nothing.
    public static func tokensMatch(_ expected: String?, _ presented: String?) -> Bool {
        guard let expected, let presented, !expected.isEmpty else { return false }
        return constantTimeEqual(expected: expected.utf8, given: presented.utf8)
    }

    /// The unix second `date` falls in: sessions and the audit trail count in whole seconds.
    public static func second(_ date: Date) -> Int { Int(date.timeIntervalSince1970.rounded(.down)) }

    static func hash(_ secret: String) -> Data { Data(SHA256.hash(data: Data(secret.utf8))) }

    private static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}

/// The console's sessions and audit trail, shared by every node.
public protocol ConsoleStore: Sendable {
    /// Stores the session and records its sign-in from `client`, together;
    /// sessions expired by `now` are removed on the way.
    func openConsoleSession(_ session: ConsoleSession, client: String, at now: Date) async throws
    /// The session stored under the hash, expired or not (see `currentConsoleSession`).
    func storedConsoleSession(secretHash: Data) async throws -> ConsoleSession?
    /// Removes the session and records its sign-out, together. False, and nothing
    /// recorded, when there was no such session.
    @discardableResult
    func closeConsoleSession(secretHash: Data, client: String, at now: Date) async throws -> Bool
    func recordConsoleAudit(_ entry: NewConsoleAuditEntry, at now: Date) async throws
    /// The newest entries first, those older than `before` when given: each page
    /// is one index range, however long the trail.
    func consoleAudit(before: Int64?, limit: Int) async throws -> [ConsoleAuditEntry]
}

extension ConsoleStore {
    /// The session the cookie's secret names, if it is one and has not expired.
    public func currentConsoleSession(presented secret: String, at now: Date) async throws -> ConsoleSession? {
        guard let hash = ConsoleRules.hash(ofPresented: secret),
              let session = try await storedConsoleSession(secretHash: hash),
              constantTimeEqual(expected: session.secretHash, given: hash),
              ConsoleRules.isCurrent(session, at: now) else { return nil }
        return session
    }
}
