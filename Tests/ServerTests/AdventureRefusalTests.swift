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
            let cases: [(String, String, String, Int, String, String?)] = [
                ("Olu, who has no hero in it", fixture.outsider.key, activityBody("olu-1", hero: "cake"), 403, "forbidden", nil),
                ("Bao for Ana's hero", bao.key, activityBody("bao-2", hero: "power-panda"), 403, "forbidden", nil),
                ("Bao under Ana's activity id", bao.key, activityBody(fixture.ana.activityID, hero: "egghead"), 403, "forbidden", nil),
                ("Bao's activity for another hero", bao.key, activityBody(bao.activityID, hero: "spouty"), 403, "forbidden", nil),
                ("an unknown hero", bao.key, activityBody("bao-2", hero: "unicorn"), 422, "invalidField", "hero"),
                ("frequentPushesEnabled as a string", bao.key, activityBody("bao-2", hero: "egghead", frequent: #""yes""#),
                 422, "invalidField", "frequentPushesEnabled"),
                ("a non-hex token", bao.key, activityBody("bao-2", token: "g" + token(1).dropFirst(), hero: "egghead"),
                 422, "invalidField", "pushToken"),
                ("an absurdly long token", bao.key, activityBody("bao-2", token: String(repeating: "0f", count: 2000), hero: "egghead"),
                 422, "invalidField", "pushToken"),
                ("an empty token", bao.key, activityBody("bao-2", token: "", hero: "egghead"), 422, "invalidField", "pushToken"),
                ("a locale that is not a tag", bao.key, activityBody("bao-2", hero: "egghead", locale: "😀"),
                 422, "invalidField", "locale"),
                ("an activity id of 129 characters", bao.key, activityBody(String(repeating: "a", count: 129), hero: "egghead"),
                 422, "invalidField", "activityID"),
                ("an empty activity id", bao.key, activityBody("", hero: "egghead"), 422, "invalidField", "activityID"),
                ("an activity id with a control character", bao.key, activityBody(#"bao\u001b2"#, hero: "egghead"),
                 422, "invalidField", "activityID"),
            ]
            for (label, key, body, status, code, field) in cases {
                try await expectRefused(server, api, label, .post, uri, key: key, body: body, status: status, code: code, field: field)
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
            let tokenCases: [(String, String, String, Int, String, String?)] = [
                ("Ana's activity", ana.activityID, #"{"pushToken": "\#(token(70))"}"#, 403, "forbidden", nil),
                ("an unknown activity", "no-such-activity", #"{"pushToken": "\#(token(70))"}"#, 404, "notFound", nil),
                ("an activity id of 129 characters", String(repeating: "a", count: 129), #"{"pushToken": "\#(token(70))"}"#,
                 422, "invalidField", "activityID"),
                ("a non-hex token", bao.activityID, #"{"pushToken": "not-hex-not-hex-not-hex"}"#, 422, "invalidField", "pushToken"),
                ("a token as a list", bao.activityID, #"{"pushToken": ["ab"]}"#, 422, "invalidField", "pushToken"),
            ]
            for (label, activity, body, status, code, field) in tokenCases {
                try await expectRefused(server, api, "token: \(label)", .put, "/v1/activities/\(activity)/token", key: bao.key,
                                        body: body, status: status, code: code, field: field)
            }
            let statusCases: [(String, String, String, Int, String, String?)] = [
                ("Ana's activity", ana.activityID, #"{"status": "ended"}"#, 403, "forbidden", nil),
                ("an unknown activity", "no-such-activity", #"{"status": "ended"}"#, 404, "notFound", nil),
                ("active, which only the server sets", bao.activityID, #"{"status": "active"}"#, 422, "invalidField", "status"),
                ("an unknown status", bao.activityID, #"{"status": "exploded"}"#, 422, "invalidField", "status"),
                ("a status as a boolean", bao.activityID, #"{"status": true}"#, 422, "invalidField", "status"),
                ("no status", bao.activityID, #"{"state": "ended"}"#, 422, "invalidField", "status"),
            ]
            for (label, activity, body, status, code, field) in statusCases {
                try await expectRefused(server, api, "status: \(label)", .post, "/v1/activities/\(activity)/status", key: bao.key,
                                        body: body, status: status, code: code, field: field)
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
            let unknownParty = "0f0e0d0c-0b0a-4908-8706-050403020100"
            let cases: [(String, String, Int, String, String?)] = [
                ("an unknown party", #"{"partyID": "\#(unknownParty)", "route": "dragon-peak", "tickInterval": 5}"#,
                 404, "notFound", nil),
                ("a party id that is no party's", #"{"partyID": "no-such-party", "route": "dragon-peak", "tickInterval": 5}"#,
                 404, "notFound", nil),
                ("a party id as a number", #"{"partyID": 7, "route": "dragon-peak", "tickInterval": 5}"#, 422, "invalidField", "partyID"),
                ("an unknown route", #"{"partyID": "\#(solo)", "route": "moon-base", "tickInterval": 5}"#, 422, "invalidField", "route"),
                ("a tick of 0 s", #"{"partyID": "\#(solo)", "route": "dragon-peak", "tickInterval": 0}"#,
                 422, "invalidField", "tickInterval"),
                ("a tick of 2 hours", #"{"partyID": "\#(solo)", "route": "dragon-peak", "tickInterval": 7200}"#,
                 422, "invalidField", "tickInterval"),
                ("a tick as a string", #"{"partyID": "\#(solo)", "route": "dragon-peak", "tickInterval": "5"}"#,
                 422, "invalidField", "tickInterval"),
                ("a tick of 1.5 s", #"{"partyID": "\#(solo)", "route": "dragon-peak", "tickInterval": 1.5}"#,
                 422, "invalidField", "tickInterval"),
                ("a tick past Int", #"{"partyID": "\#(solo)", "route": "dragon-peak", "tickInterval": 1e300}"#,
                 422, "invalidField", "tickInterval"),
                ("a time limit of 9 hours", #"{"partyID": "\#(solo)", "route": "dragon-peak", "tickInterval": 5, "timeLimit": 32400}"#,
                 422, "invalidField", "timeLimit"),
                ("a time limit under one tick", #"{"partyID": "\#(solo)", "route": "dragon-peak", "tickInterval": 60, "timeLimit": 59}"#,
                 422, "invalidField", "timeLimit"),
                ("a null time limit", #"{"partyID": "\#(solo)", "route": "dragon-peak", "tickInterval": 5, "timeLimit": null}"#,
                 422, "invalidField", "timeLimit"),
                ("a negative seed", #"{"partyID": "\#(solo)", "route": "dragon-peak", "tickInterval": 5, "seed": -1}"#,
                 422, "invalidField", "seed"),
                ("a seed past 64 bits", #"{"partyID": "\#(solo)", "route": "dragon-peak", "tickInterval": 5, "seed": 18446744073709551616}"#,
                 422, "invalidField", "seed"),
                ("no route", #"{"partyID": "\#(solo)", "tickInterval": 5}"#, 422, "invalidField", "route"),
                ("a party already on an adventure", #"{"partyID": "\#(party)", "route": "dragon-peak", "tickInterval": 5}"#,
                 409, "conflict", nil),
            ]
            for (label, body, status, code, field) in cases {
                try await expectRefused(server, api, label, .post, "/v1/gm/adventures", key: TestServer.gameMasterKey, body: body,
                                        status: status, code: code, field: field)
            }
            // Once everyone has left, there is no one to send: the party as it is now cannot play.
            #expect(try await api.send(.delete, "/v1/parties/\(solo)/members/me", key: fixture.outsider.key).status == 204)
            try await expectRefused(server, api, "an empty party", .post, "/v1/gm/adventures", key: TestServer.gameMasterKey,
                                    body: #"{"partyID": "\#(solo)", "route": "dragon-peak", "tickInterval": 5}"#,
                                    status: 409, code: "invalidAdventureSetup")
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
                                    body: #"{"hero": "cake"}"#, status: 409, code: "heroNotInAdventure")
            try await expectRefused(server, api, "an unknown hero", .post, potions, key: fixture.bao.key,
                                    body: #"{"hero": "unicorn"}"#, status: 422, code: "invalidField", field: "hero")
            try await expectRefused(server, api, "a null hero", .post, potions, key: fixture.bao.key,
                                    body: #"{"hero": null}"#, status: 422, code: "invalidField", field: "hero")
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
