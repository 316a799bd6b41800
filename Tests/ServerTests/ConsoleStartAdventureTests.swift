import Foundation
import Game
import HTTPTypes
import Server
import Store
import StoreTestSupport
import Testing
import Vocabulary

/// Starting an adventure from the console's form: the API's checks, their words
/// beside the field at fault, nothing started on a refusal, the start audited.
@Suite(.closesStores) struct ConsoleStartAdventureTests {
    @Test(arguments: StoreEngine.available) func theFormStartsTheAdventureAndTheAuditTrailSaysSo(engine: StoreEngine) async throws {
        let server = try await TestServer(engine: engine)
        try await server.test { api in
            let fixture = try await Fixture.make(api, startAdventure: false)
            var browser = ConsoleBrowser()
            #expect(try await browser.signIn(api, key: TestServer.gameMasterKey).status == 303)
            let page = try await browser.get(api, "/console/parties/\(fixture.partyID)")
            #expect(page.text.contains(#"<form method="post" action="/console/parties/\#(fixture.partyID)/adventures" id="start">"#))
            #expect(page.text.contains(#"<option value="haunted-keep""#))

            let started = try await browser.post(api, "/console/parties/\(fixture.partyID)/adventures", [
                "csrf": browser.csrf, "route": "haunted-keep", "tickInterval": "3", "timeLimit": "600", "seed": "18446744073709551615",
                "followable": "on",
            ])
            let adventures = try await server.store.adventures(of: PartyID(fixture.partyID))
            let adventure = try #require(adventures.first)
            #expect(started.status == 303 && started.headers[.location] == "/console/adventures/\(adventure.id)", "\(started)")
            #expect(adventures.count == 1 && adventure.status == .running)
            #expect(adventure.setup.route == "haunted-keep" && adventure.setup.tickInterval == 3 && adventure.setup.timeLimit == 600)
            #expect(adventure.setup.seed == UInt64.max && adventure.followCode != nil)
            let trail = try await server.store.consoleAudit(before: nil, limit: 1)
            #expect(trail.first?.action == .startAdventure && trail.first?.detail.contains(adventure.id.rawValue) == true)
            #expect(trail.first?.session != nil)

            let after = try await browser.get(api, "/console/parties/\(fixture.partyID)")
            #expect(after.text.contains(#"<p id="on-adventure" class="running">On adventure <a class="code" href="/console/adventures/\#(adventure.id)">"#))
            #expect(!after.text.contains(#"id="start""#))
            // Started meanwhile elsewhere: the API's refusal, nothing more started.
            let again = try await browser.post(api, "/console/parties/\(fixture.partyID)/adventures", [
                "csrf": browser.csrf, "route": "haunted-keep", "tickInterval": "3",
            ])
            #expect(again.status == 409)
            #expect(again.text.contains(#"<p class="error" id="start-error" role="alert">"#))
            #expect(try await server.store.adventures(of: PartyID(fixture.partyID)).count == 1)
        }
    }

    /// Each bad value, in the form and in the API's JSON: the same status and the
    /// same words, beside the field; nothing stored.
    @Test func aRefusedFieldSaysWhatTheAPISaysBesideTheField() async throws {
        let server = try await TestServer()
        try await server.test { api in
            let fixture = try await Fixture.make(api, startAdventure: false)
            var browser = ConsoleBrowser()
            #expect(try await browser.signIn(api, key: TestServer.gameMasterKey).status == 303)
            _ = try await browser.get(api, "/console/parties/\(fixture.partyID)")
            let cases: [(field: String, form: [String: String], json: String)] = [
                ("tickInterval", ["tickInterval": "often"], #""tickInterval": "often""#),
                ("tickInterval", ["tickInterval": "0"], #""tickInterval": 0"#),
                ("tickInterval", ["tickInterval": ""], #""tickInterval": """#),
                ("timeLimit", ["tickInterval": "10", "timeLimit": "5"], #""tickInterval": 10, "timeLimit": 5"#),
                ("timeLimit", ["tickInterval": "2", "timeLimit": "99999999999"], #""tickInterval": 2, "timeLimit": 99999999999"#),
                ("seed", ["tickInterval": "2", "seed": "-1"], #""tickInterval": 2, "seed": -1"#),
                ("seed", ["tickInterval": "2", "seed": "lucky"], #""tickInterval": 2, "seed": "lucky""#),
                ("route", ["tickInterval": "2", "route": "nowhere"], #""tickInterval": 2, "route": "nowhere""#),
            ]
            let before = try server.storedBytes()
            for (field, form, json) in cases {
                var body = #"{"partyID": "\#(fixture.partyID)", \#(json)"#
                if form["route"] == nil { body += #", "route": "haunted-keep""# }
                let fromAPI = try await api.send(.post, "/v1/gm/adventures", key: TestServer.gameMasterKey, body: body + "}")
                #expect(fromAPI.json["field"].string == field, "\(json): \(fromAPI)")
                let message = try #require(fromAPI.json["message"].string)
                var fields: [String: String?] = ["csrf": browser.csrf, "route": "haunted-keep"]
                for (name, value) in form { fields[name] = value }
                let fromForm = try await browser.post(api, "/console/parties/\(fixture.partyID)/adventures", fields)
                #expect(fromForm.status == fromAPI.status, "\(form)")
                let shown = fromForm.text.firstMatch(of: /<p class="error field-error" id="(\w+)-error">([^<]*)<\/p>/)
                #expect(shown.map { String($0.1) } == field, "\(form)")
                #expect(shown.map { String($0.2) } == message.replacingOccurrences(of: "&", with: "&amp;")
                    .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
                    .replacingOccurrences(of: "\"", with: "&quot;"), "\(form)")
                #expect(fromForm.text.contains(#"aria-describedby="\#(field)-error" aria-invalid="true""#))
            }
            #expect(try server.storedBytes() == before, "nothing started, nothing audited")
        }
    }

    @Test func withoutTheSessionsTokenNothingStarts() async throws {
        let server = try await TestServer()
        try await server.test { api in
            let fixture = try await Fixture.make(api, startAdventure: false)
            var browser = ConsoleBrowser()
            #expect(try await browser.signIn(api, key: TestServer.gameMasterKey).status == 303)
            _ = try await browser.get(api, "/console")
            let before = try server.storedBytes()
            for csrf in [nil, "forged"] as [String?] {
                let refused = try await browser.post(api, "/console/parties/\(fixture.partyID)/adventures",
                                                     ["csrf": csrf, "route": "haunted-keep", "tickInterval": "2"])
                #expect(refused.status == 403)
            }
            var stranger = ConsoleBrowser(cookies: ["rangers_console": "cs_" + String(repeating: "B", count: 43)])
            #expect(try await stranger.post(api, "/console/parties/\(fixture.partyID)/adventures",
                                            ["csrf": browser.csrf, "route": "haunted-keep", "tickInterval": "2"]).status == 403)
            #expect(try server.storedBytes() == before)
            #expect(try await server.store.adventures(of: PartyID(fixture.partyID)).isEmpty)
        }
    }
}
