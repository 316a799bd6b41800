import BrowserTestSupport
import Foundation
import PushPolicy
import Server
import StoreTestSupport
import Store
import Testing

/// The console in a real headless Chromium with a phone's viewport, against a
/// running server: signed in with the keyboard, the pages' values read where
/// they are shown and screenshotted under `.build/test-artifacts/console/`,
/// no error reported by the page or the browser.
@Suite(.serialized) struct ConsoleBrowserTests {
    static let artifacts = TestServer.repository.appendingPathComponent(".build/test-artifacts/console", isDirectory: true)

    /// What a page shows, read from it.
    static let readPage = """
        JSON.stringify({ path: location.pathname, title: document.querySelector("h1") ? document.querySelector("h1").textContent : "",
          signedIn: !!document.getElementById("signed-in"), session: (document.getElementById("session") || {}).textContent || "",
          signInForm: !!document.getElementById("sign-in"), focused: document.activeElement ? document.activeElement.id : "",
          keyLabel: (document.querySelector("label[for=key]") || {}).textContent || "",
          auditActions: Array.from(document.querySelectorAll("#audit tbody tr")).map(function (row) { return row.dataset.action; }),
          auditSessions: Array.from(document.querySelectorAll("#audit tbody tr td:nth-child(3)")).map(function (cell) { return cell.textContent; }),
          cookie: document.cookie, width: document.documentElement.scrollWidth })
        """

    struct Shown: Decodable {
        var path: String
        var title: String
        var signedIn: Bool
        var session: String
        var signInForm: Bool
        var focused: String
        var keyLabel: String
        var auditActions: [String]
        var auditSessions: [String]
        var cookie: String
        var width: Int
    }

    func shown(_ page: DevToolsPage) async throws -> Shown {
        let text = try #require(try await page.evaluate(Self.readPage) as? String)
        return try JSONDecoder().decode(Shown.self, from: Data(text.utf8))
    }

    /// Waits until the page shows what `condition` wants (a navigation or a form's answer).
    func waitFor(_ page: DevToolsPage, _ what: String, _ condition: (Shown) -> Bool) async throws -> Shown {
        let deadline = ContinuousClock.now + .seconds(15)
        while true {
            if let now = try? await shown(page), condition(now) { return now }
            guard ContinuousClock.now < deadline else {
                throw TimedOut(what: "the console to show \(what); it shows \(String(describing: try? await shown(page)))")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    func press(_ key: String, code: Int, text: String?, on page: DevToolsPage) async throws {
        var down: [String: Any] = ["type": "keyDown", "key": key, "code": key, "windowsVirtualKeyCode": code]
        if let text { down["text"] = text }
        try await page.send("Input.dispatchKeyEvent", down)
        try await page.send("Input.dispatchKeyEvent", ["type": "keyUp", "key": key, "code": key, "windowsVirtualKeyCode": code])
    }

    @Test func theGameMasterSignsInWithTheKeyboardSeesTheAuditTrailAndSignsOut() async throws {
        guard Chromium.executable() != nil else { throw Chromium.Missing() }
        try? FileManager.default.removeItem(at: Self.artifacts)
        try FileManager.default.createDirectory(at: Self.artifacts, withIntermediateDirectories: true)
        let server = try await LivePageServer.start(policy: PushPolicyConfiguration())
        let browser: DevToolsBrowser
        do {
            browser = try DevToolsBrowser.launch(profile: try ScratchFiles.newDirectory().appendingPathComponent("profile"))
        } catch {
            await server.shutdown()
            throw error
        }
        do {
            try await signInAndOut(server, browser)
        } catch {
            await browser.close()
            await server.shutdown()
            throw error
        }
        await browser.close()
        await server.shutdown()
    }

    func signInAndOut(_ server: LivePageServer, _ browser: DevToolsBrowser) async throws {
        let page = try await DevToolsPage.open(in: browser, width: 390, height: 844, mobile: true)
        try await page.navigate(server.base + "/console")
        // The key's field takes the focus: the game master types at once.
        let form = try await waitFor(page, "the sign-in form with the key's field focused") { $0.signInForm && $0.focused == "key" }
        #expect(form.keyLabel == "The game master's key")
        #expect(form.width <= 390, "no sideways scrolling on a phone")
        try await page.screenshot(to: Self.artifacts.appendingPathComponent("1-sign-in.png"))

        // A wrong key: the form again, saying why.
        try await page.send("Input.insertText", ["text": "gm_not_the_key"])
        try await press("Enter", code: 13, text: "\r", on: page)
        _ = try await waitFor(page, "the refusal, the key's field focused again") {
            $0.signInForm && $0.path == "/console/sign-in" && $0.focused == "key"
        }
        #expect(try await page.evaluate(#"document.getElementById("key-error").textContent"#) as? String
                == "Refused: that is not the game master's key.")
        try await page.screenshot(to: Self.artifacts.appendingPathComponent("2-refused.png"))

        try await page.send("Input.insertText", ["text": TestServer.gameMasterKey])
        try await press("Enter", code: 13, text: "\r", on: page)
        let overview = try await waitFor(page, "the overview") { $0.signedIn }
        #expect(overview.path == "/console" && overview.title == "Overview")
        #expect(overview.session.hasPrefix("s-"))
        #expect(overview.cookie.isEmpty, "the session's cookie is out of scripts' reach (HttpOnly)")
        #expect(overview.width <= 390)
        try await page.screenshot(to: Self.artifacts.appendingPathComponent("3-overview.png"))

        try await page.navigate(server.base + "/console/audit")
        let audit = try await waitFor(page, "the audit trail") { $0.path == "/console/audit" && !$0.auditActions.isEmpty }
        #expect(audit.auditActions == ["signIn", "signInRefused"])
        #expect(audit.auditSessions == [overview.session, "–"])
        try await page.screenshot(to: Self.artifacts.appendingPathComponent("4-audit.png"))

        _ = try await page.evaluate(#"document.querySelector("form.sign-out button").click()"#)
        let signedOut = try await waitFor(page, "the sign-in form after signing out") { $0.signInForm && $0.path == "/console" }
        #expect(!signedOut.signedIn)
        let trail = try await server.store.consoleAudit(before: nil, limit: 10)
        #expect(trail.map(\.action) == [.signOut, .signIn, .signInRefused])
        #expect(trail.allSatisfy { $0.client == "127.0.0.1" })
        for name in ["1-sign-in", "2-refused", "3-overview", "4-audit"] {
            let size = try Data(contentsOf: Self.artifacts.appendingPathComponent("\(name).png")).count
            #expect(size > 5_000, "\(name).png is \(size) bytes: an empty page?")
        }
        // The refused sign-in is a 401 page, which the browser reports as a failed load: that one is expected.
        let errors = page.errors.filter { !($0.url.hasSuffix("/console/sign-in") && $0.text.contains("401")) }
        #expect(errors.map(\.text) == [], "what the page or the browser reported")
    }
}
