import APNsSimulator
import BrowserTestSupport
import Foundation
import PushPolicy
import Server
import Store
import StoreTestSupport
import Testing
import Vocabulary

/// The followers' cards in a real headless Chromium: a channel made while the page
/// is open appears with its language, a per-token follower's phone shares its
/// language's card, a channel APNs no longer has shows as gone, and the party-wide
/// alert rings on the channel's card in its language. Screenshots under
/// `.build/test-artifacts/live-page-followers/`.
extension LivePageBrowserTests {
    static let followerArtifacts = TestServer.repository.appendingPathComponent(".build/test-artifacts/live-page-followers",
                                                                                  isDirectory: true)

    @Test func theFollowersCardsShowWhatTheirChannelsAndPhonesGot() async throws {
        try await withServerAndBrowser(artifacts: Self.followerArtifacts) { try await watchFollowers($0, $1) }
    }

    func watchFollowers(_ server: LivePageServer, _ browser: DevToolsBrowser) async throws {
        let (adventure, startedAdventure, phones) = try await startParty(server, followable: true)
        let followCode = try #require(try await server.store.adventure(adventure).followCode?.rawValue)
        let link = try await server.call("POST", "/v1/adventures/\(adventure)/live-links", key: phones[0].key)
        let page = try await DevToolsPage.open(in: browser, width: 390, height: 844, mobile: true)
        try await page.navigate(try #require(link["url"] as? String))
        var step = 0
        func screenshot(_ name: String) async throws {
            step += 1
            try await page.screenshot(to: Self.followerArtifacts.appendingPathComponent("\(step)-\(name).png"))
        }
        _ = try await waitForPage(page, "the members' cards") { $0.count == 3 }

        // While the page is open: Vy and Lan follow on the Vietnamese channel, Min on the
        // Korean one (each channel made as its first follower comes), Sam from a phone before iOS 18.
        var channels: [String: BroadcastChannelID] = [:]
        for (name, locale) in [("Vy", "vi-VN"), ("Lan", "vi-VN"), ("Min", "ko-KR")] {
            let created = try await server.call("POST", "/v1/players", body: ["name": name])
            let key = try #require(created["apiKey"] as? String)
            let followed = try await server.call("POST", "/v1/adventures/\(adventure)/followers", key: key, body: [
                "followCode": followCode, "locale": locale, "broadcastChannel": true,
            ])
            let channel = BroadcastChannelID(try #require((followed["channel"] as? [String: Any])?["id"] as? String))
            channels[try #require(followed["language"] as? String)] = channel
            _ = try server.simulator.subscribe(device: "\(name.lowercased())-phone", to: channel)
        }
        let sam = try #require(try await server.call("POST", "/v1/players", body: ["name": "Sam"])["apiKey"] as? String)
        try await server.call("PUT", "/v1/devices/sam-phone/push-to-start-token", key: sam,
                              body: ["pushToken": token(90), "locale": "en-US"])
        try await server.call("POST", "/v1/adventures/\(adventure)/followers", key: sam, body: [
            "followCode": followCode, "locale": "en-US", "deviceID": "sam-phone",
        ])
        try await eventually("Sam's push-to-start answered") {
            try await server.store.pushLog(of: adventure).contains { $0.target == .pushToStart("sam-phone") }
        }
        try await server.call("POST", "/v1/adventures/\(adventure)/activities", key: sam, body: [
            "activityID": "sam-activity", "pushToken": token(91), "frequentPushesEnabled": false, "locale": "en-US",
        ])

        let stored = try await server.store.followerChannels(of: adventure)
        let vi = try #require(stored.first { $0.language == "vi" }), ko = try #require(stored.first { $0.language == "ko" })
        #expect(channels["vi"] == vi.apnsID && channels["ko"] == ko.apnsID)
        let viKey = "channel:\(vi.id)", koKey = "channel:\(ko.id)"
        /// Plays a tick at a time until the push log holds what `enough` asks (the
        /// policy does not broadcast every tick).
        func play(until what: String, _ enough: ([PushLogEntry]) -> Bool) async throws -> [PushLogEntry] {
            for _ in 0..<30 {
                let log = try await server.store.pushLog(of: adventure)
                if enough(log) { return log }
                try await self.play(server, adventure, startedAt: startedAdventure.startedAt,
                                    to: try await server.store.adventure(adventure).lastTick + 1)
            }
            throw TimedOut(what: what)
        }
        let log = try await play(until: "a broadcast on each channel and a push to Sam's activity") { log in
            [PushTarget.followerChannel(vi.id), .followerChannel(ko.id), .liveActivity("sam-activity")].allSatisfy { target in
                log.contains { $0.target == target }
            }
        }
        func count(_ targets: [PushTarget]) -> Int { log.count { targets.contains($0.target) } }
        let joined = try await waitForPage(page, "a card per channel and one for the phones before iOS 18, with every push") { cards in
            [(viKey, [PushTarget.followerChannel(vi.id)]), (koKey, [.followerChannel(ko.id)]),
             ("followers:en", [.pushToStart("sam-phone"), .liveActivity("sam-activity")])].allSatisfy { key, targets in
                cards.contains { $0.card == key && $0.received == count(targets) && $0.look != "gone" }
            }
        }
        let viCard = try #require(joined.first { $0.card == viKey })
        #expect(viCard.kind == "followerChannel")
        #expect(viCard.language == "vi")
        #expect(viCard.hero == "", "no hero of its own")
        #expect(viCard.followers == "2")
        #expect(viCard.label.contains("followers' view in Tiếng Việt (vi)"), "\(viCard.label)")
        #expect(viCard.label.contains("2 followers chose it"), "\(viCard.label)")
        #expect(viCard.label.contains("APNs does not say how many devices"))
        // The simulator does: the devices subscribed when the channel's last broadcast arrived.
        let lastBroadcast = try #require(log.last { $0.target == .followerChannel(vi.id) }?.apnsID)
        let reached = try #require(server.simulator.devicesReached(byAccepted: [lastBroadcast])[lastBroadcast])
        #expect(viCard.meta.hasSuffix(" · the simulator accepted it (\(reached) device\(reached == 1 ? "" : "s"))"), "\(viCard.meta)")
        #expect(joined.first { $0.card == koKey }?.language == "ko")
        let samCard = try #require(joined.first { $0.card == "followers:en" })
        #expect(samCard.kind == "tokenFollowers")
        #expect(samCard.language == "en" && samCard.followers == "1")
        #expect(samCard.label.contains("before iOS 18"))
        // Sam's push-to-start rang on that card: the following alert, in English.
        #expect(samCard.bannerKey == AlertKind.following.titleKey)
        #expect(joined.count { $0.kind == "member" } == 3)
        try await screenshot("followers")

        // APNs no longer has the Korean channel: its broadcast is answered
        // ChannelNotRegistered, and the card shows the channel gone.
        // Sam's phone is gone too (410 Unregistered): the one phone its card stands for.
        server.simulator.removeChannel(try #require(ko.apnsID))
        server.simulator.markUnregistered(deviceToken: token(91), since: server.clock.now)
        _ = try await play(until: "a broadcast to the Korean channel and a push to Sam's activity answered") { log in
            log.contains { $0.target == .followerChannel(ko.id) && $0.reason == "ChannelNotRegistered" }
                && log.contains { $0.target == .liveActivity("sam-activity") && $0.reason == "Unregistered" }
        }
        let gone = try await waitForPage(page, "the Korean channel and Sam's phone gone") { cards in
            cards.first { $0.card == koKey }?.look == "gone" && cards.first { $0.card == "followers:en" }?.look == "gone"
        }
        #expect(gone.first { $0.card == "followers:en" }?.gone.contains("1 of these phones is gone") == true,
                "\(gone.first { $0.card == "followers:en" }?.gone ?? "")")
        let koCard = try #require(gone.first { $0.card == koKey })
        #expect(koCard.gone.contains("This channel is gone"), "\(koCard.gone)")
        #expect(koCard.gone.contains("ChannelNotRegistered"), "\(koCard.gone)")
        #expect(gone.first { $0.card == viKey }?.look != "gone")
        try await screenshot("a-channel-gone")

        // The party is wiped: the party-wide alert rings on each channel's card in its language.
        while try await server.store.adventure(adventure).status == .running {
            try await self.play(server, adventure, startedAt: startedAdventure.startedAt,
                           to: try await server.store.adventure(adventure).lastTick + 1)
        }
        let broadcasts = try await server.store.pushLog(of: adventure).filter { $0.target == .followerChannel(vi.id) }
        let alert = try #require(broadcasts.last { entry in
            ((try? JSONSerialization.jsonObject(with: entry.payload)) as? [String: Any]).flatMap { $0["aps"] as? [String: Any] }?["alert"] != nil
        })
        let expected = try Self.localizedTitle(of: alert.payload, in: "vi")
        let partyWide = Set([AlertKind.bossDefeated, .victory, .defeat, .timeLimitReached].map(\.titleKey))
        #expect(partyWide.contains(expected.key), "\(expected.key)")
        let ended = try await waitForPage(page, "the party-wide alert on the Vietnamese channel's card") { cards in
            cards.first { $0.card == viKey }.map { $0.bannerKey == expected.key && $0.look == "ended" } ?? false
        }
        #expect(ended.first { $0.card == viKey }?.bannerTitle == expected.text, "the alert in Vietnamese")
        try await screenshot("ended")
        #expect(try await page.evaluate(#"document.getElementById("status").dataset.errors"#) as? String == "0")
        #expect(page.errors.isEmpty, "the page or the browser reported: \(page.errors.map { "\($0.source) \($0.url) \($0.text)" })")
    }
}
