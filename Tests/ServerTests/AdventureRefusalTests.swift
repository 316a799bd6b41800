import Foundation
import Game
import Server
import Store
import StoreTestSupport
import Testing
import Vocabulary

/// Route by route for activities, the game master, potions and reads: someone
/// else's things, unknown ids, values the game cannot play, and what an ended
/// adventure no longer takes. Each refusal changes nothing stored.
@Suite struct AdventureRefusalTests {
    private func activityBody(_ id: String, token: String = token(60), hero: String, frequent: String = "false",
                              locale: String = "en") -> String {
        #"{"activityID": "\#(id)", "pushToken": "\#(token)", "hero": "\#(hero)", "frequentPushesEnabled": \#(frequent), "locale": "\#(locale)"}"#
    }

    @Test func registeringAnActivity() async throws {
        let server = try await TestServer()
        try await server.test { api in
            let fixture = try await Fixture.make(api)
            let uri = "/v1/adventures/\(fixture.adventureID)/activities"
            let bao = fixture.bao
            let cases: [(String, String, String, Int, String)] = [
                ("Olu, who has no hero in it", fixture.outsider.key, activityBody("olu-1", hero: "cake"), 403, "forbidden"),
                ("Bao for Ana's hero", bao.key, activityBody("bao-2", hero: "power-panda"), 403, "forbidden"),
                ("Bao under Ana's activity id", bao.key, activityBody(fixture.ana.activityID, hero: "egghead"), 403, "forbidden"),
                ("Bao's activity for another hero", bao.key, activityBody(bao.activityID, hero: "spouty"), 403, "forbidden"),
                ("frequentPushesEnabled as a string", bao.key, activityBody("bao-2", hero: "egghead", frequent: #""yes""#),
                 400, "malformedJSON"),
                ("a non-hex token", bao.key, activityBody("bao-2", token: "g" + token(1).dropFirst(), hero: "egghead"),
                 400, "invalidPushToken"),
                ("an absurdly long token", bao.key, activityBody("bao-2", token: String(repeating: "0f", count: 2000), hero: "egghead"),
                 400, "invalidPushToken"),
                ("an empty token", bao.key, activityBody("bao-2", token: "", hero: "egghead"), 400, "invalidPushToken"),
                ("a locale that is not a tag", bao.key, activityBody("bao-2", hero: "egghead", locale: "😀"), 400, "invalidInput"),
                ("an activity id of 129 characters", bao.key, activityBody(String(repeating: "a", count: 129), hero: "egghead"),
                 400, "invalidInput"),
                ("an empty activity id", bao.key, activityBody("", hero: "egghead"), 400, "invalidInput"),
            ]
            for (label, key, body, status, code) in cases {
                try await expectRefused(server, api, label, .post, uri, key: key, body: body, status: status, code: code)
            }
            try await expectRefused(server, api, "an unknown adventure", .post, "/v1/adventures/no-such-adventure/activities",
                                    key: bao.key, body: activityBody("bao-2", hero: "egghead"), status: 404, code: "notFound")
        }
    }

    @Test func rotatingATokenAndReportingAStatus() async throws {
        let server = try await TestServer()
        try await server.test { api in
            let fixture = try await Fixture.make(api)
            let ana = fixture.ana, bao = fixture.bao
            let tokenCases: [(String, String, String, Int, String)] = [
                ("Ana's activity", ana.activityID, #"{"pushToken": "\#(token(70))"}"#, 403, "forbidden"),
                ("an unknown activity", "no-such-activity", #"{"pushToken": "\#(token(70))"}"#, 404, "notFound"),
                ("a non-hex token", bao.activityID, #"{"pushToken": "not-hex-not-hex-not-hex"}"#, 400, "invalidPushToken"),
                ("a token as a list", bao.activityID, #"{"pushToken": ["ab"]}"#, 400, "malformedJSON"),
            ]
            for (label, activity, body, status, code) in tokenCases {
                try await expectRefused(server, api, "token: \(label)", .put, "/v1/activities/\(activity)/token", key: bao.key,
                                        body: body, status: status, code: code)
            }
            let statusCases: [(String, String, String, Int, String)] = [
                ("Ana's activity", ana.activityID, #"{"status": "ended"}"#, 403, "forbidden"),
                ("an unknown activity", "no-such-activity", #"{"status": "ended"}"#, 404, "notFound"),
                ("active, which only the server sets", bao.activityID, #"{"status": "active"}"#, 400, "malformedJSON"),
                ("an unknown status", bao.activityID, #"{"status": "exploded"}"#, 400, "malformedJSON"),
                ("a status as a boolean", bao.activityID, #"{"status": true}"#, 400, "malformedJSON"),
            ]
            for (label, activity, body, status, code) in statusCases {
                try await expectRefused(server, api, "status: \(label)", .post, "/v1/activities/\(activity)/status", key: bao.key,
                                        body: body, status: status, code: code)
            }
            // An ended activity takes no new token.
            #expect(try await api.send(.post, "/v1/activities/\(bao.activityID)/status", key: bao.key,
                                       body: #"{"status": "ended"}"#).status == 200)
            try await expectRefused(server, api, "a token for an ended activity", .put, "/v1/activities/\(bao.activityID)/token",
                                    key: bao.key, body: #"{"pushToken": "\#(token(71))"}"#, status: 409, code: "conflict")
        }
    }

    @Test func startingAnAdventure() async throws {
        let server = try await TestServer()
        try await server.test { api in
            let fixture = try await Fixture.make(api)
            let party = fixture.partyID
            // A second party with no adventure, so only the setup can be at fault.
            let created = try await api.send(.post, "/v1/parties", key: fixture.outsider.key, body: #"{"name": "Solo", "hero": "cake"}"#)
            let solo = try #require(created.json["id"].string)
            let cases: [(String, String, Int, String)] = [
                ("an unknown party", #"{"partyID": "no-such-party", "route": "dragon-peak", "tickInterval": 5}"#, 404, "notFound"),
                ("an unknown route", #"{"partyID": "\#(solo)", "route": "moon-base", "tickInterval": 5}"#, 400, "invalidAdventureSetup"),
                ("a tick of 0 s", #"{"partyID": "\#(solo)", "route": "dragon-peak", "tickInterval": 0}"#, 400, "invalidAdventureSetup"),
                ("a tick of 2 hours", #"{"partyID": "\#(solo)", "route": "dragon-peak", "tickInterval": 7200}"#, 400, "invalidAdventureSetup"),
                ("a tick as a string", #"{"partyID": "\#(solo)", "route": "dragon-peak", "tickInterval": "5"}"#, 400, "malformedJSON"),
                ("a tick of 1.5 s", #"{"partyID": "\#(solo)", "route": "dragon-peak", "tickInterval": 1.5}"#, 400, "malformedJSON"),
                ("a tick past Int", #"{"partyID": "\#(solo)", "route": "dragon-peak", "tickInterval": 1e300}"#, 400, "malformedJSON"),
                ("a time limit of 9 hours", #"{"partyID": "\#(solo)", "route": "dragon-peak", "tickInterval": 5, "timeLimit": 32400}"#,
                 400, "invalidAdventureSetup"),
                ("a negative seed", #"{"partyID": "\#(solo)", "route": "dragon-peak", "tickInterval": 5, "seed": -1}"#, 400, "malformedJSON"),
                ("no route", #"{"partyID": "\#(solo)", "tickInterval": 5}"#, 400, "malformedJSON"),
                ("a party already on an adventure", #"{"partyID": "\#(party)", "route": "dragon-peak", "tickInterval": 5}"#, 409, "conflict"),
            ]
            for (label, body, status, code) in cases {
                try await expectRefused(server, api, label, .post, "/v1/gm/adventures", key: TestServer.gameMasterKey, body: body,
                                        status: status, code: code)
            }
            // Once everyone has left, there is no one to send.
            #expect(try await api.send(.delete, "/v1/parties/\(solo)/members/me", key: fixture.outsider.key).status == 204)
            try await expectRefused(server, api, "an empty party", .post, "/v1/gm/adventures", key: TestServer.gameMasterKey,
                                    body: #"{"partyID": "\#(solo)", "route": "dragon-peak", "tickInterval": 5}"#,
                                    status: 400, code: "invalidAdventureSetup")
        }
    }

    @Test func usingAPotionAndReading() async throws {
        let server = try await TestServer()
        try await server.test { api in
            let fixture = try await Fixture.make(api)
            let adventure = fixture.adventureID
            let potions = "/v1/adventures/\(adventure)/potions"
            try await expectRefused(server, api, "Olu's potion", .post, potions, key: fixture.outsider.key,
                                    body: #"{"hero": "egghead"}"#, status: 403, code: "forbidden")
            try await expectRefused(server, api, "a hero not in the adventure", .post, potions, key: fixture.bao.key,
                                    body: #"{"hero": "cake"}"#, status: 400, code: "heroNotInAdventure")
            try await expectRefused(server, api, "a null hero", .post, potions, key: fixture.bao.key,
                                    body: #"{"hero": null}"#, status: 400, code: "malformedJSON")
            try await expectRefused(server, api, "an unknown adventure", .post, "/v1/adventures/nope/potions", key: fixture.bao.key,
                                    body: #"{"hero": "egghead"}"#, status: 404, code: "notFound")
            for suffix in ["", "/events", "/pushes"] {
                try await expectRefused(server, api, "Olu reads \(suffix)", .get, "/v1/adventures/\(adventure)\(suffix)",
                                        key: fixture.outsider.key, status: 403, code: "forbidden")
                try await expectRefused(server, api, "unknown \(suffix)", .get, "/v1/adventures/nope\(suffix)",
                                        key: TestServer.gameMasterKey, status: 404, code: "notFound")
            }
            try await expectRefused(server, api, "ending an unknown adventure", .post, "/v1/gm/adventures/nope/end",
                                    key: TestServer.gameMasterKey, status: 404, code: "notFound")
        }
    }

    @Test func anEndedAdventureTakesNoMoreCommandsOrActivities() async throws {
        let server = try await TestServer()
        try await server.test { api in
            let fixture = try await Fixture.make(api)
            let id = AdventureID(fixture.adventureID)
            #expect(try await api.send(.post, "/v1/gm/adventures/\(id)/end", key: TestServer.gameMasterKey).status == 202)
            // Asking twice queues it once.
            #expect(try await api.send(.post, "/v1/gm/adventures/\(id)/end", key: TestServer.gameMasterKey).status == 202)
            #expect(try await server.store.pendingCommands(for: id).count == 1)

            // The ticker's part: the next tick applies the end.
            let inputs = try await server.store.tickInputs(of: id)
            let game = try Adventure(setup: inputs.adventure.setup, content: server.resources.content.game)
            let (state, events) = game.tick(inputs.adventure.state, commands: inputs.commands.map(\.command))
            #expect(state.status == .endedByGameMaster)
            try await server.store.recordTick(adventure: id, tick: 1, state: state, events: events,
                                              appliedCommandIDs: inputs.commands.map(\.id), outbox: [], ledgers: [:])

            try await expectRefused(server, api, "ending it again", .post, "/v1/gm/adventures/\(id)/end",
                                    key: TestServer.gameMasterKey, status: 409, code: "conflict")
            try await expectRefused(server, api, "a potion after the end", .post, "/v1/adventures/\(id)/potions",
                                    key: fixture.bao.key, body: #"{"hero": "egghead"}"#, status: 409, code: "conflict")
            try await expectRefused(server, api, "a new activity after the end", .post, "/v1/adventures/\(id)/activities",
                                    key: fixture.bao.key, body: activityBody("late", hero: "egghead"), status: 409, code: "conflict")
            let running = try await api.send(.get, "/v1/gm/adventures", key: TestServer.gameMasterKey)
            #expect(running.json["adventures"].array.isEmpty)
            #expect(try await api.send(.get, "/v1/adventures/\(id)", key: fixture.ana.key).json["status"].string == "endedByGameMaster")
        }
    }
}
