import BrowserTestSupport
import Foundation
import PushPolicy
import Replay
import Server
import StoreTestSupport
import Store
import Testing
import Vocabulary

/// The console in a real headless Chromium with a phone's viewport, against a
/// running server: signed in with the keyboard, the pages' values read where
/// they are shown and screenshotted under `.build/test-artifacts/console/`,
/// no error reported by the page or the browser.
@Suite(.serialized) struct ConsoleBrowserTests {
    static let artifacts = TestServer.repository.appendingPathComponent(".build/test-artifacts/console", isDirectory: true)

    /// What a page shows, read from it.
    static let readPage = """
        JSON.stringify({ path: location.pathname, query: location.search, ready: document.readyState, title: document.querySelector("h1") ? document.querySelector("h1").textContent : "",
          signedIn: !!document.getElementById("signed-in"), session: (document.getElementById("session") || {}).textContent || "",
          signInForm: !!document.getElementById("sign-in"), focused: document.activeElement ? document.activeElement.id : "",
          keyLabel: (document.querySelector("label[for=key]") || {}).textContent || "",
          auditActions: Array.from(document.querySelectorAll("#audit tbody tr")).map(function (row) { return row.dataset.action; }),
          auditSessions: Array.from(document.querySelectorAll("#audit tbody tr td:nth-child(3)")).map(function (cell) { return cell.textContent; }),
          parties: Array.from(document.querySelectorAll("#parties tbody tr")).map(function (row) { return row.dataset.party; }),
          partyNames: Array.from(document.querySelectorAll("#parties tbody tr td:first-child")).map(function (cell) { return cell.textContent; }),
          members: Array.from(document.querySelectorAll("#members tbody tr")).map(function (row) {
            return row.cells[0].textContent + " " + row.cells[1].textContent; }),
          phones: Array.from(document.querySelectorAll("#phones tbody tr")).map(function (row) {
            return row.cells[0].textContent + " " + row.cells[2].textContent + " " + row.cells[3].textContent; }),
          inviteCode: (document.getElementById("invite-code") || {}).textContent || "",
          status: (document.getElementById("status") || {}).textContent || "",
          finished: Array.from(document.querySelectorAll("#finished tbody tr")).map(function (row) {
            return row.dataset.adventure + " " + row.querySelector(".outcome").textContent; }),
          outcome: (document.getElementById("outcome") || {}).textContent || "",
          verdict: (document.getElementById("verdict") || { dataset: {} }).dataset.verdict || "",
          tick: Number((document.getElementById("tick") || {}).textContent || "-1"),
          heroHealth: Array.from(document.querySelectorAll("#heroes tbody tr")).map(function (row) {
            return row.cells[0].textContent + " " + row.cells[1].textContent; }),
          cookie: document.cookie, width: document.documentElement.scrollWidth })
        """

    struct Shown: Decodable {
        var path: String
        var query: String
        var ready: String
        var title: String
        var signedIn: Bool
        var session: String
        var signInForm: Bool
        var focused: String
        var keyLabel: String
        var auditActions: [String]
        var auditSessions: [String]
        var parties: [String]
        var partyNames: [String]
        var members: [String]
        var phones: [String]
        var inviteCode: String
        var status: String
        var finished: [String]
        var outcome: String
        var verdict: String
        var tick: Int
        var heroHealth: [String]
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
            if let now = try? await shown(page), now.ready == "complete", condition(now) { return now }
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
        try await withServerAndBrowser { try await signInAndOut($0, $1) }
    }

    @Test func theGameMasterFindsAPartyByItsInviteCodeAndSeesItsPhones() async throws {
        try await withServerAndBrowser { try await findAParty($0, $1) }
    }

    @Test func theGameMasterStartsAnAdventureWatchesItsTickMoveAndEndsIt() async throws {
        try await withServerAndBrowser { try await startWatchAndEnd($0, $1) }
    }

    /// Runs `body` with a live server and a browser, closing both whatever happens.
    func withServerAndBrowser(_ body: (LivePageServer, DevToolsBrowser) async throws -> Void) async throws {
        try FileManager.default.createDirectory(at: Self.artifacts, withIntermediateDirectories: true)
        try await LivePageServer.withBrowser(policy: PushPolicyConfiguration(), body)
    }

    func screenshot(_ page: DevToolsPage, _ name: String) async throws {
        let file = Self.artifacts.appendingPathComponent("\(name).png")
        try await page.screenshot(to: file)
        let size = try Data(contentsOf: file).count
        #expect(size > 5_000, "\(name).png is \(size) bytes: an empty page?")
    }

    /// Signs in from the form with the keyboard; the overview as it shows.
    func signIn(_ page: DevToolsPage, _ server: LivePageServer) async throws -> Shown {
        try await page.navigate(server.base + "/console")
        _ = try await waitFor(page, "the sign-in form with the key's field focused") { $0.signInForm && $0.focused == "key" }
        try await page.send("Input.insertText", ["text": TestServer.gameMasterKey])
        try await press("Enter", code: 13, text: "\r", on: page)
        return try await waitFor(page, "the overview") { $0.signedIn }
    }

    /// A party whose members' names are in Vietnamese, Korean and Chinese, each with a phone.
    func makeParty(_ server: LivePageServer) async throws -> (id: String, inviteCode: String) {
        var keys: [String] = []
        for (name, hero, locale) in [("Ánh", "power-panda", "vi-VN"), ("민준", "egghead", "ko-KR"), ("小龙", "spouty", "zh-Hans-CN")] {
            let key = try #require(try await server.call("POST", "/v1/players", body: ["name": name])["apiKey"] as? String)
            try await server.call("PUT", "/v1/players/me/heroes", key: key, body: ["heroes": [hero]])
            try await server.call("PUT", "/v1/devices/phone-\(keys.count)/push-to-start-token", key: key,
                                  body: ["pushToken": String(repeating: "a\(keys.count)", count: 32), "locale": locale])
            keys.append(key)
        }
        let party = try await server.call("POST", "/v1/parties", key: keys[0], body: ["name": "Đội Rồng 용사들 龙队", "hero": "power-panda"])
        let code = try #require(party["inviteCode"] as? String)
        for (key, hero) in zip(keys.dropFirst(), ["egghead", "spouty"]) {
            try await server.call("POST", "/v1/parties/join", key: key, body: ["inviteCode": code, "hero": hero])
        }
        return (try #require(party["id"] as? String), code)
    }

    func startWatchAndEnd(_ server: LivePageServer, _ browser: DevToolsBrowser) async throws {
        let party = try await makeParty(server)
        let page = try await DevToolsPage.open(in: browser, width: 390, height: 844, mobile: true)
        _ = try await signIn(page, server)
        try await page.navigate(server.base + "/console/parties/\(party.id)")
        _ = try await waitFor(page, "the party's page") { $0.path == "/console/parties/\(party.id)" }
        // The form filled from the keyboard: a tick every second, seed 5.
        _ = try await page.evaluate(#"document.getElementById("route").value = "haunted-keep""#)
        _ = try await page.evaluate(#"document.getElementById("tickInterval").select()"#)
        try await page.send("Input.insertText", ["text": "1"])
        _ = try await page.evaluate(#"document.getElementById("seed").focus()"#)
        try await page.send("Input.insertText", ["text": "5"])
        try await press("Enter", code: 13, text: "\r", on: page)
        let started = try await waitFor(page, "the adventure's page") { $0.path.hasPrefix("/console/adventures/") && $0.status == "running" }
        let adventure = AdventureID(String(started.path.dropFirst("/console/adventures/".count)).removingPercentEncoding ?? "")
        let stored = try await server.store.adventure(adventure)
        #expect(stored.setup.tickInterval == 1 && stored.setup.seed == 5 && stored.setup.route == "haunted-keep")
        #expect(started.heroHealth.count == 3)
        try await screenshot(page, "7-adventure-started")

        // The clock moves: the page, following the live stream, shows the tick move
        // in place (the mark set now would be gone had it loaded itself again).
        _ = try await page.evaluate("window.stillThisPage = true")
        for _ in 0..<3 {
            server.clock.advance(by: 1)
            try await eventually("the next tick", within: .seconds(20)) {
                try await server.store.adventure(adventure).lastTick >= Int(server.clock.now.timeIntervalSince1970) - stored.startedAt
            }
        }
        let ticking = try await waitFor(page, "the tick moving on the page") { $0.tick >= 3 }
        #expect(ticking.status == "running")
        #expect(try await page.evaluate("window.stillThisPage === true") as? Bool == true, "updated in place, not loaded again")
        try await screenshot(page, "8-adventure-ticking")

        _ = try await page.evaluate(#"document.getElementById("end-link").click()"#)
        _ = try await waitFor(page, "the end's confirmation") { $0.path.hasSuffix("/end") && $0.title.hasPrefix("End adventure") }
        try await screenshot(page, "9-confirm-end")
        _ = try await page.evaluate(##"document.querySelector("#end button").click()"##)
        _ = try await waitFor(page, "the adventure's page again") { !$0.path.hasSuffix("/end") && $0.status == "running" }
        server.clock.advance(by: 1)
        let ended = try await waitFor(page, "the end on the page") { $0.status == "endedByGameMaster" }
        #expect(ended.tick >= 4)
        try await screenshot(page, "10-ended")
        let trail = try await server.store.consoleAudit(before: nil, limit: 3).map(\.action)
        #expect(trail == [.endAdventure, .startAdventure, .signIn])

        // Under finished: the outcome, the replay identical, the timeline, the session file.
        _ = try await page.evaluate(#"document.querySelector("nav a[href='/console/finished']").click()"#)
        let finished = try await waitFor(page, "the finished adventures") { $0.path == "/console/finished" && !$0.finished.isEmpty }
        #expect(finished.finished == [adventure.rawValue + " endedByGameMaster"])
        try await screenshot(page, "11-finished")
        _ = try await page.evaluate(##"document.querySelector("#finished a").click()"##)
        let outcome = try await waitFor(page, "the finished adventure's page") { !$0.outcome.isEmpty }
        #expect(outcome.outcome.hasPrefix("endedByGameMaster after "))
        _ = try await page.evaluate(#"document.getElementById("replay-link").click()"#)
        let replay = try await waitFor(page, "the replay's verdict") { !$0.verdict.isEmpty }
        #expect(replay.verdict == "identical")
        try await screenshot(page, "12-replay")
        // The download as the browser saves it, from the link on the adventure's page.
        let downloads = try ScratchFiles.newDirectory()
        try await browser.send("Browser.setDownloadBehavior", ["behavior": "allow", "downloadPath": downloads.path])
        _ = try await page.evaluate(#"history.back()"#)
        _ = try await waitFor(page, "the finished adventure's page again") { !$0.outcome.isEmpty }
        _ = try await page.evaluate(#"document.getElementById("session-link").click()"#)
        let saved = downloads.appendingPathComponent("adventure-\(adventure.rawValue).json")
        // Chromium may name the file before it has written it: done when no part is left and the file is whole.
        try await eventually("the session file downloaded", within: .seconds(15)) {
            let parts = (try? FileManager.default.contentsOfDirectory(atPath: downloads.path))?.filter { $0.hasSuffix(".crdownload") } ?? []
            return parts.isEmpty && ((try? SessionFile.decode(try Data(contentsOf: saved))) != nil)
        }
        let session = try SessionFile.decode(try Data(contentsOf: saved))
        #expect(session.adventureID == adventure && session.setup.seed == 5)
        try await page.navigate(server.base + "/console/adventures/\(adventure.rawValue)/timeline")
        _ = try await waitFor(page, "the timeline") { $0.path.hasSuffix("/timeline") }
        #expect(try await page.evaluate("document.querySelectorAll('svg').length") as? Int ?? 0 > 0)
        try await screenshot(page, "13-timeline")

        try await page.navigate(server.base + "/console/delivery")
        _ = try await waitFor(page, "the delivery health") { $0.path == "/console/delivery" }
        let answered = try await page.evaluate(#"Number(document.getElementById("answered").textContent)"#) as? Int ?? 0
        #expect(answered == (try await server.store.pushLog(of: adventure).count), "every answer of the last hour")
        try await screenshot(page, "14-delivery")
        #expect(page.errors.map(\.text) == [], "what the page or the browser reported")
    }

    func findAParty(_ server: LivePageServer, _ browser: DevToolsBrowser) async throws {
        let party = try await makeParty(server)
        let page = try await DevToolsPage.open(in: browser, width: 390, height: 844, mobile: true)
        _ = try await signIn(page, server)
        // To the directory by its link, to the search box with the keyboard.
        _ = try await page.evaluate(#"document.querySelector("nav a[href='/console/parties']").click()"#)
        _ = try await waitFor(page, "the party directory") { $0.path == "/console/parties" }
        _ = try await page.evaluate(#"document.getElementById("q").focus()"#)
        // As a player reads it out: small letters, a dash in the middle.
        let typed = party.inviteCode.lowercased().prefix(4) + "-" + party.inviteCode.lowercased().suffix(4)
        try await page.send("Input.insertText", ["text": String(typed)])
        try await press("Enter", code: 13, text: "\r", on: page)
        let listed = try await waitFor(page, "the party found") { $0.query.hasPrefix("?q=") && $0.parties == [party.id] }
        #expect(listed.partyNames == ["Đội Rồng 용사들 龙队"])
        #expect(listed.width <= 390)
        try await screenshot(page, "5-parties")

        _ = try await page.evaluate(##"document.querySelector("#parties a").click()"##)
        let shown = try await waitFor(page, "the party's page") { $0.path.hasPrefix("/console/parties/") && !$0.members.isEmpty }
        #expect(shown.title == "Party Đội Rồng 용사들 龙队")
        #expect(shown.members == ["Ánh Power Panda", "민준 Egghead", "小龙 Spouty"])
        #expect(shown.phones == ["Ánh registered vi", "민준 registered ko", "小龙 registered zh-Hans"])
        #expect(shown.inviteCode == party.inviteCode)
        // Each name's letters drawn as glyphs, not as the box a missing glyph gets (the setup installs a CJK font).
        let drawn = try await page.evaluate(#"""
            (function () {
              var canvas = document.createElement("canvas"); canvas.width = 60; canvas.height = 40;
              var context = canvas.getContext("2d"); context.font = "24px " + getComputedStyle(document.body).fontFamily;
              function pixels(text) { context.clearRect(0, 0, 60, 40); context.fillText(text, 4, 30);
                                      return Array.from(context.getImageData(0, 0, 60, 40).data).join(","); }
              var box = pixels("\u0378");
              return ["Á", "ồ", "민", "준", "용", "小", "龙", "队"].filter(function (letter) { return pixels(letter) === box; });
            })()
            """#) as? [String]
        #expect(drawn == [], "letters drawn as the missing glyph's box")
        #expect(shown.width <= 390)
        try await screenshot(page, "6-party")
        #expect(page.errors.map(\.text) == [], "what the page or the browser reported")
    }

    func signInAndOut(_ server: LivePageServer, _ browser: DevToolsBrowser) async throws {
        try? FileManager.default.removeItem(at: Self.artifacts)
        try FileManager.default.createDirectory(at: Self.artifacts, withIntermediateDirectories: true)
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
