import Foundation
import Store
import StoreTestSupport
import Testing

/// The console's sessions and audit trail, on each engine: a session is kept by
/// the hash of its secret, is current until it expires, ends when closed, and
/// every opening, closing and recorded refusal is in the trail, newest first.
@Suite(.closesStores) struct ConsoleTests {
    static let start = Date(timeIntervalSince1970: 1_767_225_600)

    @Test(arguments: StoreEngine.available) func aSessionIsKnownByItsSecretUntilItExpiresOrCloses(engine: StoreEngine) async throws {
        let database = try await engine.database()
        let store = try await database.open()
        let (secret, session) = ConsoleRules.newSession(at: Self.start)
        try await store.openConsoleSession(session, client: "198.51.100.7", at: Self.start)

        #expect(try await store.currentConsoleSession(presented: secret, at: Self.start) == session)
        let lastSecond = Self.start.addingTimeInterval(TimeInterval(ConsoleRules.sessionLifetime - 1))
        #expect(try await store.currentConsoleSession(presented: secret, at: lastSecond) == session)
        let expiry = Self.start.addingTimeInterval(TimeInterval(ConsoleRules.sessionLifetime))
        #expect(try await store.currentConsoleSession(presented: secret, at: expiry) == nil, "expired on the second it ends")
        #expect(try await store.currentConsoleSession(presented: secret + "x", at: Self.start) == nil)
        #expect(try await store.currentConsoleSession(presented: "cs_" + String(repeating: "A", count: 43), at: Self.start) == nil)
        let stored = try await database.rows(sqlite: "SELECT hex(secretHash) FROM consoleSession",
                                             postgres: "SELECT encode(secret_hash, 'hex') FROM console_session")
        let hash = try #require(ConsoleRules.hash(ofPresented: secret))
        #expect(stored.map { $0[0]?.lowercased() } == [hash.map { String(format: "%02x", $0) }.joined()], "only the secret's hash is stored")

        #expect(try await store.closeConsoleSession(secretHash: hash, client: "198.51.100.8", at: Self.start))
        #expect(try await store.currentConsoleSession(presented: secret, at: Self.start) == nil)
        #expect(try await store.closeConsoleSession(secretHash: hash, client: "198.51.100.8", at: Self.start) == false,
                "closed twice: nothing more recorded")

        let trail = try await store.consoleAudit(before: nil, limit: 10)
        #expect(trail.map(\.action) == [.signOut, .signIn])
        #expect(trail.map(\.session) == [session.reference, session.reference])
        #expect(trail.map(\.client) == ["198.51.100.8", "198.51.100.7"])
    }

    @Test(arguments: StoreEngine.available) func openingASessionForgetsExpiredOnes(engine: StoreEngine) async throws {
        let store = try await engine.database().open()
        let (old, oldSession) = ConsoleRules.newSession(at: Self.start)
        try await store.openConsoleSession(oldSession, client: "a", at: Self.start)
        let later = Self.start.addingTimeInterval(TimeInterval(ConsoleRules.sessionLifetime))
        let (_, newSession) = ConsoleRules.newSession(at: later)
        try await store.openConsoleSession(newSession, client: "a", at: later)
        #expect(try await store.storedConsoleSession(secretHash: try #require(ConsoleRules.hash(ofPresented: old))) == nil)
    }

    @Test(arguments: StoreEngine.available) func theTrailIsPagedNewestFirstAndKeepsLongTextShort(engine: StoreEngine) async throws {
        let store = try await engine.database().open()
        for index in 0..<7 {
            try await store.recordConsoleAudit(NewConsoleAuditEntry(action: .signInRefused, session: nil, client: "c\(index)",
                                                                    detail: String(repeating: "d", count: 500)),
                                               at: Self.start.addingTimeInterval(TimeInterval(index)))
        }
        let first = try await store.consoleAudit(before: nil, limit: 3)
        #expect(first.map(\.client) == ["c6", "c5", "c4"])
        #expect(first.map(\.at) == [6, 5, 4].map { Int(Self.start.timeIntervalSince1970) + $0 })
        #expect(first.allSatisfy { $0.detail.count == ConsoleRules.longestAuditText })
        let second = try await store.consoleAudit(before: first.last!.id, limit: 3)
        #expect(second.map(\.client) == ["c3", "c2", "c1"])
        let last = try await store.consoleAudit(before: second.last!.id, limit: 3)
        #expect(last.map(\.client) == ["c0"])
    }
}
