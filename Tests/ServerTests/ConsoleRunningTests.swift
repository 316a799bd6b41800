import Foundation
import Game
import HTTPTypes
import Server
import Store
import StoreTestSupport
import Testing
import Vocabulary

/// Running adventures in the console: the list, an adventure's page (health,
/// pushes, the live page, loading itself again), and the end, confirmed, audited.
@Suite(.closesStores) struct ConsoleRunningTests {
    @Test(arguments: StoreEngine.available) func aRunningAdventuresPageAndItsConfirmedEnd(engine: StoreEngine) async throws {
        let server = try await TestServer(engine: engine)
        try await server.test { api in
            let fixture = try await Fixture.make(api)
            var browser = ConsoleBrowser()
            #expect(try await browser.signIn(api, key: TestServer.gameMasterKey).status == 303)

            let list = try await browser.get(api, "/console/adventures")
            #expect(list.status == 200)
            #expect(list.text.contains(#"<tr data-adventure="\#(fixture.adventureID)">"#) && list.text.contains("<td>Rangers</td>"))
            #expect(list.text.contains(#"<meta http-equiv="refresh""#))

            let page = try await browser.get(api, "/console/adventures/\(fixture.adventureID)")
            #expect(page.status == 200)
            #expect(page.text.contains(#"<span id="status" data-status="running">running</span>"#))
            #expect(page.text.contains(#"<span id="tick">0</span>"#))
            #expect(page.text.contains(#"<meta http-equiv="refresh" content="2">"#), "it follows the adventure")
            #expect(page.text.matches(of: /<tr data-hero="[^"]+"><td>[^<]+<\/td><td class="health">\d+ \/ \d+<\/td><\/tr>/).count == 3)
            #expect(page.text.contains(#"<p id="pushes" data-sent="0" data-pending="3""#), "the three push-to-starts wait: no APNs here")
            let live = try #require(page.text.firstMatch(of: /<a href="([^"]+)" id="live-link">/)?.1)
            let livePage = try await api.send(.get, String(live).replacingOccurrences(of: "&amp;", with: "&"))
            #expect(livePage.status == 200, "the live page opens with the console's link")

            let confirm = try await browser.get(api, "/console/adventures/\(fixture.adventureID)/end")
            #expect(confirm.status == 200 && confirm.text.contains(#"<form method="post" action="/console/adventures/\#(fixture.adventureID)/end" id="end">"#))
            #expect(!confirm.text.contains("http-equiv=\"refresh\""), "no refresh while the game master decides")

            let before = try await server.store.tickInputs(of: AdventureID(fixture.adventureID)).commands
            #expect(try await browser.post(api, "/console/adventures/\(fixture.adventureID)/end", ["csrf": browser.csrf]).status == 422,
                    "not from the confirmation's form")
            #expect(try await browser.post(api, "/console/adventures/\(fixture.adventureID)/end", ["confirm": "yes"]).status == 403)
            #expect(try await server.store.tickInputs(of: AdventureID(fixture.adventureID)).commands == before)

            let ended = try await browser.post(api, "/console/adventures/\(fixture.adventureID)/end", ["csrf": browser.csrf, "confirm": "yes"])
            #expect(ended.status == 303 && ended.headers[.location] == "/console/adventures/\(fixture.adventureID)")
            #expect(try await server.store.tickInputs(of: AdventureID(fixture.adventureID)).commands.map(\.command) == [.endAdventure])
            let trail = try await server.store.consoleAudit(before: nil, limit: 1)
            #expect(trail.first?.action == .endAdventure && trail.first?.detail == "adventure \(fixture.adventureID)")
            let after = try await browser.get(api, "/console/adventures/\(fixture.adventureID)")
            #expect(after.text.contains(#"<p id="end-requested""#) && !after.text.contains(#"id="end-link""#))
            #expect(try await browser.get(api, "/console/adventures/no-such-adventure").status == 404)
        }
    }
}
