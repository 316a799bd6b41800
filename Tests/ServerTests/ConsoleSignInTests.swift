import Foundation
import HTTPTypes
import Hummingbird
import Server
import Store
import StoreTestSupport
import Testing

/// Signing in to the game master's console: the key in a form, a session in the
/// store behind an HttpOnly, SameSite=Strict cookie, a CSRF token on every form,
/// the wrong keys limited, and every sign-in, refusal and sign-out in the audit trail.
@Suite(.closesStores) struct ConsoleSignInTests {
    static let sessionCookie = "rangers_console"

    @Test(arguments: StoreEngine.available) func theGameMastersKeyOpensASessionThatTheAuditTrailRecords(engine: StoreEngine) async throws {
        let server = try await TestServer(engine: engine)
        try await server.test { api in
            var browser = ConsoleBrowser()
            let form = try await browser.get(api, "/console")
            #expect(form.status == 200)
            #expect(form.text.contains(#"<input type="password" id="key" name="key""#))
            #expect(form.headers[.contentSecurityPolicy]?.contains("form-action 'self'") == true)
            #expect(!browser.csrf.isEmpty)

            let signedIn = try await browser.post(api, "/console/sign-in", ["key": TestServer.gameMasterKey, "csrf": browser.csrf])
            #expect(signedIn.status == 303)
            #expect(signedIn.headers[.location] == "/console")
            let cookie = try #require(ConsoleBrowser.setCookies(signedIn)[Self.sessionCookie])
            for attribute in ["HttpOnly", "SameSite=Strict", "Path=/console", "Max-Age=\(ConsoleRules.sessionLifetime)"] {
                #expect(cookie.contains(attribute), "\(attribute) in \(cookie)")
            }
            #expect(!cookie.contains("Secure"), "a request over plain HTTP gets no Secure cookie (the browser would drop it)")
            #expect(!cookie.contains(TestServer.gameMasterKey))

            let overview = try await browser.get(api, "/console")
            #expect(overview.status == 200)
            #expect(overview.text.contains(#"id="signed-in""#))
            let reference = try #require(overview.text.firstMatch(of: /id="session">(s-[0-9a-f]{16})</)?.1)

            let audit = try await browser.get(api, "/console/audit")
            #expect(audit.status == 200)
            #expect(audit.text.contains(#"data-action="signIn""#) && audit.text.contains(String(reference)))
            #expect(!audit.text.contains(browser.cookies[Self.sessionCookie]!), "the session's secret is never shown")
            let stored = try await server.store.consoleAudit(before: nil, limit: 10)
            #expect(stored.map(\.action) == [.signIn])
            #expect(stored.first?.session?.rawValue == String(reference))
            #expect(stored.first?.at == Int(TestServer.startTime.timeIntervalSince1970))
        }
    }

    @Test func overTLSAsTheProxySaysTheCookieIsSecure() async throws {
        let server = try await TestServer()
        try await server.test { api in
            var browser = ConsoleBrowser()
            let signedIn = try await browser.signIn(api, key: TestServer.gameMasterKey, headers: [HTTPField.Name("X-Forwarded-Proto")!: "https"])
            #expect(ConsoleBrowser.setCookies(signedIn)[Self.sessionCookie]?.contains("; Secure") == true)
        }
    }

    @Test func withoutASessionEveryPageSendsTheBrowserToSignIn() async throws {
        let server = try await TestServer()
        try await server.test { api in
            let page = try await api.send(.get, "/console/audit")
            #expect(page.status == 303 && page.headers[.location] == "/console")
            let signOut = try await api.send(.post, "/console/sign-out", body: "csrf=x",
                                             headers: [.contentType: "application/x-www-form-urlencoded"])
            #expect(signOut.status == 303 && signOut.headers[.location] == "/console")
        }
    }

    @Test func aForgedOrExpiredSessionIsRefusedAndChangesNothing() async throws {
        let clock = ManualClock(TestServer.startTime)
        let server = try await TestServer(now: { clock.now })
        try await server.test { api in
            var forged = ConsoleBrowser(cookies: [Self.sessionCookie: "cs_" + String(repeating: "A", count: 43)])
            #expect(try await forged.get(api, "/console/audit").status == 403)
            var garbage = ConsoleBrowser(cookies: [Self.sessionCookie: "not-a-session"])
            #expect(try await garbage.get(api, "/console").status == 403)

            var browser = ConsoleBrowser()
            #expect(try await browser.signIn(api, key: TestServer.gameMasterKey).status == 303)
            #expect(try await browser.get(api, "/console/audit").status == 200)
            clock.advance(by: TimeInterval(ConsoleRules.sessionLifetime) - 1)
            #expect(try await browser.get(api, "/console/audit").status == 200)
            clock.advance(by: 1)
            let before = try server.storedBytes()
            let kept = browser
            let expired = try await browser.get(api, "/console/audit")
            #expect(expired.status == 403)
            #expect(expired.text.contains("Sign in again"))
            #expect(ConsoleBrowser.setCookies(expired)["rangers_console"]?.contains("Max-Age=0") == true, "the dead cookie is dropped")
            #expect(try await browser.get(api, "/console").text.contains(#"id="sign-in""#), "so the sign-in form is one click away")
            browser = kept
            let signOut = try await browser.post(api, "/console/sign-out", ["csrf": browser.csrf])
            #expect(signOut.status == 403)
            #expect(try server.storedBytes() == before, "a refused request writes nothing")
        }
    }

    @Test func aFormWithoutTheSessionsTokenIsRefusedAndChangesNothing() async throws {
        let server = try await TestServer()
        try await server.test { api in
            // The sign-in form's own token: posted without it, or with another, the key is not even looked at.
            var stranger = ConsoleBrowser()
            _ = try await stranger.get(api, "/console")
            let before = try server.storedBytes()
            #expect(try await stranger.post(api, "/console/sign-in", ["key": TestServer.gameMasterKey, "csrf": nil]).status == 403)
            #expect(try await stranger.post(api, "/console/sign-in", ["key": TestServer.gameMasterKey, "csrf": "forged"]).status == 403)
            var noCookie = ConsoleBrowser()
            #expect(try await noCookie.post(api, "/console/sign-in", ["key": TestServer.gameMasterKey, "csrf": "forged"]).status == 403)
            #expect(try server.storedBytes() == before)

            var browser = ConsoleBrowser()
            #expect(try await browser.signIn(api, key: TestServer.gameMasterKey).status == 303)
            _ = try await browser.get(api, "/console")
            let signedIn = try server.storedBytes()
            #expect(try await browser.post(api, "/console/sign-out", ["csrf": nil]).status == 403)
            #expect(try await browser.post(api, "/console/sign-out", ["csrf": "wrong"]).status == 403)
            #expect(try server.storedBytes() == signedIn)
            #expect(try await browser.get(api, "/console/audit").status == 200, "the session is still there")
        }
    }

    @Test(arguments: StoreEngine.available) func signingOutEndsTheSessionAndIsRecorded(engine: StoreEngine) async throws {
        let server = try await TestServer(engine: engine)
        try await server.test { api in
            var browser = ConsoleBrowser()
            #expect(try await browser.signIn(api, key: TestServer.gameMasterKey).status == 303)
            _ = try await browser.get(api, "/console")
            let kept = browser
            let signedOut = try await browser.post(api, "/console/sign-out", ["csrf": browser.csrf])
            #expect(signedOut.status == 303 && signedOut.headers[.location] == "/console")
            #expect(ConsoleBrowser.setCookies(signedOut)[Self.sessionCookie]?.contains("Max-Age=0") == true)
            // A copy of the old cookie is no good any more.
            var replayed = kept
            #expect(try await replayed.get(api, "/console/audit").status == 403)
            let trail = try await server.store.consoleAudit(before: nil, limit: 10)
            #expect(trail.map(\.action) == [.signOut, .signIn])
            #expect(trail[0].session == trail[1].session)
        }
    }

    @Test func aPlayersKeyAndAWrongKeyAreRefusedAndRecordedWithoutTheKey() async throws {
        let server = try await TestServer()
        try await server.test { api in
            let player = try #require(try await api.send(.post, "/v1/players", body: #"{"name":"Ana"}"#).json["apiKey"].string)
            var browser = ConsoleBrowser()
            let refused = try await browser.signIn(api, key: player)
            #expect(refused.status == 401)
            #expect(refused.text.contains("a player&#39;s key does not sign in") || refused.text.contains("a player's key does not sign in"))
            #expect(ConsoleBrowser.setCookies(refused)[Self.sessionCookie] == nil)
            let wrong = try await browser.post(api, "/console/sign-in", ["key": "gm_guess", "csrf": browser.csrf])
            #expect(wrong.status == 401)
            #expect(wrong.text.contains(#"aria-invalid="true""#))
            let trail = try await server.store.consoleAudit(before: nil, limit: 10)
            #expect(trail.map(\.action) == [.signInRefused, .signInRefused])
            #expect(trail.map(\.detail) == ["that is not the game master's key", "a player's key does not sign in to the console"])
            for entry in trail { #expect(!entry.detail.contains(player) && !entry.detail.contains("gm_guess") && entry.session == nil) }
        }
    }

    @Test func wrongKeysPastTheLimitAre429EvenForTheRightKey() async throws {
        let server = try await TestServer(limits: AbuseLimits(signUpsPerMinute: 10, failedAuthenticationsPerMinute: 2))
        try await server.test(.live) { api in
            var browser = ConsoleBrowser()
            _ = try await browser.get(api, "/console")
            for _ in 0..<2 {
                #expect(try await browser.post(api, "/console/sign-in", ["key": "gm_guess", "csrf": browser.csrf]).status == 401)
            }
            let limited = try await browser.post(api, "/console/sign-in", ["key": TestServer.gameMasterKey, "csrf": browser.csrf])
            #expect(limited.status == 429)
            #expect(limited.headers[.retryAfter] != nil)
            #expect(limited.headers[.contentType]?.hasPrefix("text/html") == true, "a page the browser shows")
            #expect(limited.text.contains("Too many wrong keys from your address: at most 2 a minute; ask again in"))
            #expect(browser.cookies[Self.sessionCookie] == nil)
        }
    }

    @Test func theAuditTrailIsPagedNewestFirst() async throws {
        let server = try await TestServer()
        for index in 0..<(55) {
            try await server.store.recordConsoleAudit(NewConsoleAuditEntry(action: .signInRefused, session: nil, client: "198.51.100.\(index)",
                                                                           detail: "entry \(index)"), at: TestServer.startTime)
        }
        try await server.test { api in
            var browser = ConsoleBrowser()
            #expect(try await browser.signIn(api, key: TestServer.gameMasterKey).status == 303)
            let first = try await browser.get(api, "/console/audit")
            #expect(first.text.matches(of: /<tr data-action=/).count == 50)
            #expect(first.text.contains(#"data-action="signIn""#), "the newest first: this sign-in")
            let older = try #require(first.text.firstMatch(of: /href="(\/console\/audit\?before=\d+)" rel="next"/)?.1)
            let second = try await browser.get(api, String(older))
            #expect(second.text.matches(of: /<tr data-action=/).count == 6)
            #expect(second.text.contains("entry 0") && !second.text.contains("rel=\"next\""))
            #expect(try await browser.get(api, "/console/audit?before=zero").status == 422)
        }
    }
}
