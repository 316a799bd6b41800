import Foundation
import HTTPTypes
import Server
import Store
import StoreTestSupport
import Testing

/// The console's parties: the directory, searched and paged, and a party's page
/// with its members, heroes, phones, activities, walkie-talkie and adventures.
@Suite(.closesStores) struct ConsolePartyPageTests {
    @Test(arguments: StoreEngine.available) func thePartyPageShowsItsMembersPhonesActivitiesAndWalkieTalkie(engine: StoreEngine) async throws {
        let server = try await TestServer(engine: engine)
        try await server.test { api in
            let fixture = try await Fixture.make(api)
            try #require(try await api.send(.put, "/v1/parties/\(fixture.partyID)/channel/members/me", key: fixture.bao.key,
                                             body: #"{"pushToken": "\#(token(54))"}"#).status == 200)
            try #require(try await api.send(.put, "/v1/devices/phone-vi/push-to-start-token", key: fixture.ana.key,
                                             body: #"{"pushToken": "\#(token(55))", "locale": "vi-VN"}"#).status == 200)
            var browser = ConsoleBrowser()
            #expect(try await browser.signIn(api, key: TestServer.gameMasterKey).status == 303)

            let directory = try await browser.get(api, "/console/parties?q=rang")
            #expect(directory.status == 200)
            #expect(directory.text.contains(#"<tr data-party="\#(fixture.partyID)">"#))
            #expect(directory.text.contains(fixture.inviteCode) && directory.text.contains(#"<span class="running">running</span>"#))
            let byCode = try await browser.get(api, "/console/parties?q=\(fixture.inviteCode.lowercased())")
            #expect(byCode.text.contains(#"data-party="\#(fixture.partyID)""#))
            // Eight letters that read as an invite code no party has: part of a name after all.
            let hawks = try await api.send(.post, "/v1/parties", key: fixture.outsider.key, body: #"{"name": "The Warhawks", "hero": "cake"}"#)
            try #require(hawks.status == 201, "\(hawks)")
            let byName = try await browser.get(api, "/console/parties?q=warhawks")
            #expect(byName.text.contains(#"data-party="\#(hawks.json["id"].string ?? "?")""#), "\(byName.text)")
            let none = try await browser.get(api, "/console/parties?q=%3Cscript%3E")
            #expect(none.text.contains("No party matches '&lt;script&gt;'."), "what was typed comes back escaped")

            let page = try await browser.get(api, "/console/parties/\(fixture.partyID)")
            #expect(page.status == 200)
            #expect(page.text.contains(#"<span class="code" id="invite-code">\#(fixture.inviteCode)</span>"#))
            for member in fixture.members {
                #expect(page.text.contains(#"<tr data-player="\#(member.id)">"#))
                #expect(page.text.contains(#"<tr data-device="\#(member.deviceID)">"#))
                #expect(page.text.contains(#"<tr data-activity="\#(member.activityID)">"#))
            }
            #expect(page.text.contains("<td>Power Panda</td>"), "heroes by their names")
            #expect(page.text.contains(#"<td data-push-to-start="true">registered</td>"#))
            #expect(page.text.contains(#"<tr data-device="phone-vi"><td>Ana</td>"#) && page.text.contains(#"<td data-push-to-start="true">registered</td><td>vi</td>"#))
            #expect(page.text.contains(#"<td data-frequent="false">off</td>"#))
            #expect(page.text.contains(#"<td data-token="valid">valid</td>"#))
            #expect(page.text.contains(#"<p id="walkie-talkie" data-state="open">"#) && page.text.contains("listening: Bao."))
            #expect(page.text.contains(#"<tr data-adventure="\#(fixture.adventureID)">"#))

            // Closing the walkie-talkie: without the token nothing closes; with it, Bao is told to leave, and the trail says so.
            #expect(try await browser.post(api, "/console/parties/\(fixture.partyID)/walkie-talkie/close", ["csrf": "forged"]).status == 403)
            #expect(try await browser.get(api, "/console/parties/\(fixture.partyID)").text.contains(#"data-state="open""#))
            let pending = try await server.store.pendingOutboxCount()
            let closed = try await browser.post(api, "/console/parties/\(fixture.partyID)/walkie-talkie/close", ["csrf": browser.csrf])
            #expect(closed.status == 303 && closed.headers[.location] == "/console/parties/\(fixture.partyID)")
            let after = try await browser.get(api, "/console/parties/\(fixture.partyID)")
            #expect(after.text.contains(#"<p id="walkie-talkie" data-state="closed">"#) && !after.text.contains("close-walkie-talkie"))
            #expect(try await server.store.pendingOutboxCount() == pending + 1, "Bao's phone is told to leave the channel")
            let trail = try await server.store.consoleAudit(before: nil, limit: 1)
            #expect(trail.first?.action == .closeWalkieTalkie && trail.first?.detail == "party \(fixture.partyID)")
        }
    }

    @Test func theDirectoryPagesThroughEveryPartyOnceAndRefusesAHalfCursor() async throws {
        let server = try await TestServer()
        let trio = try await Trio.make(in: server.store)
        for index in 0..<60 {
            try await server.store.createParty(name: String(format: "Party %02d", index), by: trio.players[0].id, hero: trio.heroes[0])
        }
        try await server.test { api in
            var browser = ConsoleBrowser()
            #expect(try await browser.signIn(api, key: TestServer.gameMasterKey).status == 303)
            var seen: [String] = []
            var next: String? = "/console/parties?q=party"
            while let address = next {
                let page = try await browser.get(api, address)
                #expect(page.status == 200)
                seen += page.text.matches(of: /<tr data-party="([^"]+)">/).map { String($0.1) }
                next = page.text.firstMatch(of: /href="([^"]+)" rel="next"/).map {
                    String($0.1).replacingOccurrences(of: "&amp;", with: "&")
                }
            }
            #expect(seen.count == 60 && Set(seen).count == 60, "each party once, over three pages")
            #expect(try await browser.get(api, "/console/parties?after=Party%2010").status == 422)
            #expect(try await browser.get(api, "/console/parties/no-such-party").status == 404)
            #expect(try await api.send(.get, "/console/parties").headers[.location] == "/console", "no session: sign in first")
        }
    }
}
