import APNs
import BrowserTestSupport
import Catalog
import Foundation
import Game
import PushPolicy
import Server
import Store
import StoreTestSupport
import Testing
import Vocabulary

/// The live page in a real headless Chromium (a phone-sized viewport), against a
/// running server with the APNs simulator: what each card shows as the adventure
/// plays, goes stale, loses a phone, survives a server restart and ends. Saves a
/// screenshot of each moment under `.build/test-artifacts/live-page/` and fails
/// on any error the page or the browser reports.
@Suite(.serialized) struct LivePageBrowserTests {
    static let artifacts = TestServer.repository.appendingPathComponent(".build/test-artifacts/live-page", isDirectory: true)
    static let content = try! LoadedContent.load(from: TestServer.contentDirectory)

    /// Haunted Keep, seed 5: Power Panda is knocked down at tick 56, the party wiped at 61.
    static let route = "haunted-keep", seed = 5, knockDownTick = 56
    /// Updates go stale two seconds after their timestamp (frequent updates on: one a second).
    static let policy = PushPolicyConfiguration(staleAfterMissedUpdates: 2, minimumStaleSeconds: 1)

    struct Phone {
        var name: String
        var hero: String
        var locale: String
        var language: String
        var key = ""
        var device: String { "device-\(name.lowercased())" }
        var activity: String { "activity-\(name.lowercased())" }
    }

    /// A card as the page shows it.
    struct Card: Decodable {
        var card: String
        var kind: String
        var hero: String
        var language: String
        var look: String
        var received: Int
        var waiting: Int
        var avatar: String
        var bannerKey: String?
        var bannerTitle: String?
        var note: String
        var gone: String
        var waitingNote: String
        /// A followers' card: what it stands for, and for how many followers.
        var label: String
        var followers: String
        /// The last push: priority, tick, APNs' answer and, with the simulator, what it recorded.
        var meta: String
    }

    static let readCards = """
        JSON.stringify(Array.from(document.querySelectorAll("#cards .phone")).map(function (card) {
          var banner = card.querySelector(".banner.latest");
          return { card: card.dataset.card, kind: card.dataset.kind, hero: card.dataset.hero, language: card.dataset.language, look: card.dataset.look,
                   received: Number(card.dataset.received), waiting: Number(card.dataset.waiting),
                   avatar: card.querySelector(".phone-head .avatar").textContent,
                   bannerKey: banner ? banner.dataset.key : null,
                   bannerTitle: banner ? banner.querySelector(".banner-title").textContent : null,
                   note: card.querySelector(".note").textContent, gone: card.querySelector(".gone-note").textContent,
                   waitingNote: card.querySelector(".waiting-note").textContent,
                   label: card.querySelector(".followers-label").textContent, followers: card.dataset.followers,
                   meta: card.querySelector(".meta").textContent };
        }))
        """

    func cards(_ page: DevToolsPage) async throws -> [Card] {
        let text = try #require(try await page.evaluate(Self.readCards) as? String)
        return try JSONDecoder().decode([Card].self, from: Data(text.utf8))
    }

    func state(_ page: DevToolsPage) async throws -> String {
        try await page.evaluate(#"document.getElementById("status").dataset.state"#) as? String ?? ""
    }

    /// Polls what the page shows until `condition` holds; the deadline is generous,
    /// this is about what the page shows, not how fast.
    func waitForPage(_ page: DevToolsPage, _ what: String, within limit: Duration = .seconds(15),
                     _ condition: ([Card]) -> Bool) async throws -> [Card] {
        let deadline = ContinuousClock.now + limit
        while true {
            let shown = try await cards(page)
            if condition(shown) { return shown }
            guard ContinuousClock.now < deadline else {
                throw TimedOut(what: "the page to show \(what); it shows \(shown.map { "\($0.card) \($0.look) received \($0.received) waiting \($0.waiting) banner \($0.bannerKey ?? "-")" })")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// The title of the alert the phone got in `payload`, as the phone shows it in `language`.
    static func localizedTitle(of payload: Data, in language: String) throws -> (key: String, text: String) {
        let object = try JSONSerialization.jsonObject(with: payload) as? [String: Any]
        let title = try #require(((object?["aps"] as? [String: Any])?["alert"] as? [String: Any])?["title"] as? [String: Any])
        let key = try #require(title["loc-key"] as? String)
        let args = title["loc-args"] as? [String] ?? []
        return (key, content.strings.format(LocalizedText(key: key, args: args), language: language))
    }

    @Test func thePageShowsEachPhoneAsItsPushesLeftIt() async throws {
        try await withServerAndBrowser(artifacts: Self.artifacts) { try await play($0, $1) }
    }

    /// Runs `body` with a live server and a browser, closing both whatever happens.
    func withServerAndBrowser(artifacts: URL, _ body: (LivePageServer, DevToolsBrowser) async throws -> Void) async throws {
        try? FileManager.default.removeItem(at: artifacts)
        try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        note("screenshots in \(artifacts.path)")
        try await LivePageServer.withBrowser(policy: Self.policy, body)
    }

    func note(_ text: String) { FileHandle.standardError.write(Data("live page test: \(text)\n".utf8)) }

    /// Ana (vi), Bao (ko) and Chae (en) in a party, the adventure started for them
    /// (`followable` or not), their push-to-starts answered and their activities registered.
    func startParty(_ server: LivePageServer, followable: Bool = false) async throws -> (AdventureID, StoredAdventure, [Phone]) {
        var phones = [
            Phone(name: "Ana", hero: "power-panda", locale: "vi-VN", language: "vi"),
            Phone(name: "Bao", hero: "egghead", locale: "ko-KR", language: "ko"),
            Phone(name: "Chae", hero: "spouty", locale: "en-US", language: "en"),
        ]
        for index in phones.indices {
            let created = try await server.call("POST", "/v1/players", body: ["name": phones[index].name])
            phones[index].key = try #require(created["apiKey"] as? String)
            try await server.call("PUT", "/v1/players/me/heroes", key: phones[index].key, body: ["heroes": [phones[index].hero]])
            try await server.call("PUT", "/v1/devices/\(phones[index].device)/push-to-start-token", key: phones[index].key,
                                  body: ["pushToken": token(60 + index), "locale": phones[index].locale])
        }
        let party = try await server.call("POST", "/v1/parties", key: phones[0].key, body: ["name": "Rangers", "hero": phones[0].hero])
        for phone in phones.dropFirst() {
            try await server.call("POST", "/v1/parties/join", key: phone.key,
                                  body: ["inviteCode": party["inviteCode"] as! String, "hero": phone.hero])
        }
        let started = try await server.call("POST", "/v1/gm/adventures", key: TestServer.gameMasterKey, body: [
            "partyID": party["id"] as! String, "route": Self.route, "tickInterval": 1, "seed": Self.seed, "followable": followable,
        ])
        let adventure = AdventureID(try #require(started["id"] as? String))
        let startedAdventure = try await server.store.adventure(adventure)
        try await eventually("the push-to-starts answered") { try await server.store.pushLog(of: adventure).count == 3 }
        for (index, phone) in phones.enumerated() {
            try await server.call("POST", "/v1/adventures/\(adventure)/activities", key: phone.key, body: [
                "activityID": phone.activity, "pushToken": token(70 + index), "hero": phone.hero,
                "frequentPushesEnabled": true, "locale": phone.locale,
            ])
        }
        return (adventure, startedAdventure, phones)
    }

    /// Moves the clock a second at a time until the adventure has played `tick`,
    /// each tick's pushes answered before the next.
    func play(_ server: LivePageServer, _ adventure: AdventureID, startedAt: Int, to tick: Int) async throws {
        while try await server.store.adventure(adventure).lastTick < tick {
            server.clock.advance(by: 1)
            // Due now: after the restart the clock is ahead of the last tick, and the ticker catches up at once.
            let next = Int(server.clock.now.timeIntervalSince1970) - startedAt
            do {
                try await eventually("tick \(next) and its pushes", within: .seconds(30)) {
                    try await server.store.isSettled(adventure, at: next)
                }
            } catch {
                let open = try await server.store.outbox(of: adventure).filter { $0.state == .pending || $0.state == .sending }
                let stored = try await server.store.adventure(adventure)
                note("unsettled at \(stored.lastTick), next due \(stored.nextTickAt.map { $0 - stored.startedAt } ?? -1), clock \(Int(server.clock.now.timeIntervalSince1970) - stored.startedAt): \(open.map { "\($0.id) \($0.tick ?? -1) \($0.state) \($0.outcome ?? "-") \($0.attempts)" })")
                throw error
            }
        }
    }

    func play(_ server: LivePageServer, _ browser: DevToolsBrowser) async throws {
        let (adventure, startedAdventure, phones) = try await startParty(server)

        // A member asks for the link, as a browser cannot send the key.
        let link = try await server.call("POST", "/v1/adventures/\(adventure)/live-links", key: phones[1].key)
        let url = try #require(link["url"] as? String)
        #expect(url.hasPrefix(server.base + "/live/adventures/\(adventure)?token="))

        let page = try await DevToolsPage.open(in: browser, width: 390, height: 844, mobile: true)
        try await page.navigate(url)
        var step = 0
        func screenshot(_ name: String) async throws {
            step += 1
            try await page.screenshot(to: Self.artifacts.appendingPathComponent("\(step)-\(name).png"))
        }

        // Three cards, each with its hero's avatar and its phone's language, each
        // showing the start alert its phone got, localized in that language.
        let joined = try await waitForPage(page, "three cards, each with its push-to-start") {
            $0.count == 3 && $0.allSatisfy { $0.received >= 1 && $0.bannerKey != nil }
        }
        #expect(joined.map(\.hero) == phones.map(\.hero))
        #expect(joined.map(\.language) == phones.map(\.language))
        #expect(joined.map(\.avatar) == phones.map { Self.content.game.hero(HeroID($0.hero))?.avatar ?? "?" })
        let starts = try await server.store.pushLog(of: adventure)
        for (card, phone) in zip(joined, phones) {
            let start = try #require(starts.first { $0.target == .pushToStart(DeviceID(phone.device)) })
            let title = try Self.localizedTitle(of: start.payload, in: phone.language)
            #expect(card.bannerKey == title.key)
            #expect(card.bannerTitle == title.text, "\(phone.name)'s start alert in \(phone.language)")
            #expect(card.meta.hasSuffix(" · the simulator accepted it (1 device)"), "\(card.meta)")
        }
        let overflow = try await page.evaluate("document.documentElement.scrollWidth - window.innerWidth") as? Int
        #expect(overflow == 0, "the page fits a phone's width (\(overflow ?? -1) px too wide)")
        try await screenshot("joined")

        func play(to tick: Int) async throws {
            try await self.play(server, adventure, startedAt: startedAdventure.startedAt, to: tick)
        }

        // APNs answers 503 to everything: each phone keeps its last state, a push
        // waits to be sent again, and once the clock passes the stale date the
        // activities look out of date.
        try await play(to: 5)
        _ = try await waitForPage(page, "every phone live") { $0.allSatisfy { $0.look == "live" } }
        try server.simulator.failShare(1, reason: .serviceUnavailable, seed: 1)
        try await play(to: 8)
        let stale = try await waitForPage(page, "every phone out of date with a push pending") {
            $0.allSatisfy { $0.look == "stale" && $0.waiting >= 1 && $0.waitingNote.contains("pending") }
        }
        #expect(stale.allSatisfy { $0.note.hasPrefix("Out of date since") })
        // One each: a newer update supersedes the older one waiting for the same activity,
        // also when the older's "try later" came after the newer was queued.
        #expect(stale.allSatisfy { $0.waiting == 1 }, "\(stale.map { "\($0.card): \($0.waitingNote)" })")
        try await screenshot("stale-and-pending")
        try server.simulator.failShare(0, reason: .serviceUnavailable, seed: 1)
        try await play(to: 9)
        _ = try await waitForPage(page, "every phone live again") { $0.allSatisfy { $0.look == "live" && $0.waiting == 0 } }

        // Chae's phone is gone: APNs answers 410 Unregistered for its activity's token.
        server.simulator.markUnregistered(deviceToken: token(72), since: server.clock.now)
        try await play(to: 12)
        let gone = try await waitForPage(page, "Chae's phone gone") { $0[2].look == "gone" }
        #expect(gone[2].gone.contains("410 Unregistered"))
        #expect(gone[0].look == "live" && gone[1].look == "live")
        try await screenshot("a-phone-gone")

        // The server restarts (the clock moves on meanwhile): the page reconnects
        // and catches up from the last event id it saw, missing and repeating nothing.
        try await play(to: 20)
        let beforeStop = browser.events.count
        try await server.stop()
        try await eventually("the page to notice", within: .seconds(15)) { try await state(page) == "reconnecting" }
        server.clock.advance(by: 3)
        try await server.run()
        try await eventually("the page to reconnect", within: .seconds(30)) { try await state(page) == "live" }
        let afterRestart = browser.events.count
        try await play(to: 30)
        let log = try await server.store.pushLog(of: adventure)
        func count(_ phone: Phone) -> Int {
            log.count { $0.target == .pushToStart(DeviceID(phone.device)) || $0.target == .liveActivity(ActivityID(phone.activity)) }
        }
        let caughtUp = try await waitForPage(page, "every push of the log once") { cards in
            zip(cards, phones).allSatisfy { $0.received == count($1) }
        }
        #expect(caughtUp.map(\.received).reduce(0, +) == log.count)
        try await screenshot("after-a-restart")

        // Power Panda is knocked down: Ana's phone rings with the alert, in Vietnamese.
        try await play(to: Self.knockDownTick)
        let events = try await server.store.events(of: adventure)
        #expect(events.contains { $0.tick == Self.knockDownTick && $0.event == .heroKnockedDown(hero: "power-panda", boss: "ghost-queen") })
        let alert = try #require(try await server.store.pushLog(of: adventure).last {
            $0.target == .liveActivity(ActivityID(phones[0].activity)) && $0.tick == Self.knockDownTick
        })
        #expect(alert.priority == .high)
        let expected = try Self.localizedTitle(of: alert.payload, in: "vi")
        #expect(expected.key == "alert.heroKnockedDown.title")
        let answered = ContinuousClock.now
        let rang = try await waitForPage(page, "Ana's knocked-down alert") {
            $0[0].bannerKey == expected.key && $0[0].bannerTitle == expected.text
        }
        note("the knocked-down banner showed \(ContinuousClock.now - answered) after its push was answered")
        #expect(rang[0].bannerTitle == expected.text)
        #expect(rang[1].bannerKey != expected.key, "only the owner's phone gets that alert")
        try await screenshot("knocked-down")

        // The party is wiped: each phone still there shows the end and the time left on the Lock Screen.
        while try await server.store.adventure(adventure).status == .running {
            try await play(to: try await server.store.adventure(adventure).lastTick + 1)
        }
        let ended = try await waitForPage(page, "the end on every phone still there") {
            $0[0].look == "ended" && $0[1].look == "ended" && $0[2].look == "gone"
        }
        // The dismissal date is the end's timestamp plus the policy's 15 minutes.
        #expect(ended[0].note.contains(/removed from the Lock Screen in 1[45]:\d\d$/), "\(ended[0].note)")
        try await screenshot("ended")

        // Nothing went wrong on the page; the only errors the browser logged are the
        // stream's failed reconnections while the server was down.
        #expect(try await page.evaluate(#"document.getElementById("status").dataset.errors"#) as? String == "0")
        let errors = page.errors
        let unexpected = errors.filter { error in
            !(error.source == "network" && error.url.contains("/live/adventures/\(adventure)/events")
              && (beforeStop..<afterRestart).contains(error.index))
        }
        #expect(unexpected.isEmpty, "the page or the browser reported: \(unexpected.map { "\($0.source) \($0.url) \($0.text)" })")
    }
}
