import Foundation
import Game
import Server
import Store
import StoreTestSupport
import Testing
import Vocabulary

/// The API from a player's sign-up to a game master's end, checked both in what
/// it answers and in what the store then holds.
@Suite(.closesStores) struct FlowTests {
    @Test(arguments: StoreEngine.available) func playersFormAPartyAndAGameMasterStartsTheirAdventure(engine: StoreEngine) async throws {
        let server = try await TestServer(engine: engine)
        let store = server.store
        try await server.test { api in
            // Players sign up; the key is handed out once and works as a bearer key.
            var keys: [String] = []
            var ids: [String] = []
            for name in ["Ana", "Bao", "Chae"] {
                let created = try await api.send(.post, "/v1/players", body: #"{"name": "\#(name)"}"#)
                #expect(created.status == 201)
                #expect(created.json["player"]["name"].string == name)
                let key = try #require(created.json["apiKey"].string)
                #expect(key.hasPrefix("rk_"))
                keys.append(key)
                ids.append(try #require(created.json["player"]["id"].string))
            }
            let me = try await api.send(.get, "/v1/players/me", key: keys[1])
            #expect(me.status == 200)
            #expect(me.json["player"]["id"].string == ids[1])

            // Each picks a hero; the choice is stored.
            for (key, hero) in zip(keys, ["power-panda", "egghead", "spouty"]) {
                let picked = try await api.send(.put, "/v1/players/me/heroes", key: key, body: #"{"heroes": ["\#(hero)"]}"#)
                #expect(picked.status == 200)
                #expect(picked.json["heroes"].array == [.string(hero)])
            }
            #expect(try await store.heroes(of: PlayerID(ids[2])) == ["spouty"])

            // Ana makes a party; Bao types the code in lower case with a dash, Chae as shown.
            let party = try await api.send(.post, "/v1/parties", key: keys[0], body: #"{"name": "Rangers", "hero": "power-panda"}"#)
            #expect(party.status == 201)
            let partyID = try #require(party.json["id"].string)
            let code = try #require(party.json["inviteCode"].string)
            let typed = code.prefix(4).lowercased() + "-" + code.dropFirst(4).lowercased()
            let baoJoined = try await api.send(.post, "/v1/parties/join", key: keys[1], body: #"{"inviteCode": "\#(typed)", "hero": "egghead"}"#)
            #expect(baoJoined.status == 200)
            let chaeJoined = try await api.send(.post, "/v1/parties/join", key: keys[2], body: #"{"inviteCode": "\#(code)", "hero": "spouty"}"#)
            #expect(chaeJoined.status == 200)
            let read = try await api.send(.get, "/v1/parties/\(partyID)", key: keys[2])
            #expect(read.status == 200)
            #expect(read.json["members"].array.compactMap { $0["hero"].string } == ["power-panda", "egghead", "spouty"])
            #expect(try await store.members(of: PartyID(partyID)).map(\.player.rawValue) == ids)

            // Ana's and Bao's phones register push-to-start tokens; Chae's does not.
            let anaDevice = try await api.send(.put, "/v1/devices/ana-phone/push-to-start-token", key: keys[0],
                                               body: #"{"pushToken": "\#(token(1).uppercased())", "locale": "vi-VN"}"#)
            #expect(anaDevice.status == 200)
            #expect(anaDevice.json["language"].string == "vi")
            let baoDevice = try await api.send(.put, "/v1/devices/bao-phone/push-to-start-token", key: keys[1],
                                               body: #"{"pushToken": "\#(token(2))", "locale": "ko"}"#)
            #expect(baoDevice.status == 200)

            // The game master starts: the adventure and one start push per token are stored together.
            let started = try await api.send(.post, "/v1/gm/adventures", key: TestServer.gameMasterKey,
                                             body: #"{"partyID": "\#(partyID)", "route": "whispering-woods", "tickInterval": 2, "seed": 42}"#)
            #expect(started.status == 201, "\(started)")
            let adventureID = try #require(started.json["id"].string)
            #expect(started.json["status"].string == "running")
            #expect(started.json["seed"].string == "42")
            #expect(started.json["timeLimit"].int == 8 * 3600)
            #expect(started.json["startedAt"].int == Int(TestServer.startTime.timeIntervalSince1970))
            #expect(started.json["roster"].array.compactMap { $0["player"].string } == ids)

            let stored = try await store.adventure(AdventureID(adventureID))
            #expect(stored.setup.seed == 42 && stored.setup.route == "whispering-woods" && stored.status == .running)
            let outbox = try await store.outbox(of: AdventureID(adventureID))
            #expect(outbox.map(\.message.target) == [.pushToStart(DeviceID("ana-phone")), .pushToStart(DeviceID("bao-phone"))])
            for entry in outbox {
                #expect(entry.tick == 0 && entry.state == .pending)
                #expect(entry.message.priority == .high && entry.message.hasAlert && !entry.message.isEnd)
                #expect(entry.message.topic.rawValue == "\(TestServer.bundleID).push-type.liveactivity")
                let aps = JSON(parsing: String(decoding: entry.message.payload, as: UTF8.self))["aps"]
                #expect(aps["event"].string == "start")
                #expect(aps["attributes-type"].string == "AdventureAttributes")
                #expect(aps["alert"]["sound"].string == "AdventureStart.caf")
            }
            // Each start speaks its device's language: Ana's in Vietnamese, Bao's in Korean.
            let content = server.resources.content
            let firstBoss = GameEvent.nextBossAppears(boss: stored.state.boss.boss).text(names: content.game)
            for (entry, language) in zip(outbox, ["vi", "ko"]) {
                let state = JSON(parsing: String(decoding: entry.message.payload, as: UTF8.self))["aps"]["content-state"]
                #expect(state["eventDescription"].string == content.strings.format(firstBoss, language: language))
            }
            #expect(content.strings.format(firstBoss, language: "vi") != content.strings.format(firstBoss, language: "ko"))

            // The party now shows the running adventure.
            let during = try await api.send(.get, "/v1/parties/\(partyID)", key: keys[0])
            #expect(during.json["runningAdventure"].string == adventureID)

            // The activities register, each in its app's language.
            let locales = ["vi-VN", "ko-KR", "zh-Hans-CN"]
            for (index, (key, hero)) in zip(keys, ["power-panda", "egghead", "spouty"]).enumerated() {
                let body = #"{"activityID": "act-\#(index)", "pushToken": "\#(token(10 + index))", "hero": "\#(hero)", "frequentPushesEnabled": \#(index == 0), "locale": "\#(locales[index])"}"#
                let registered = try await api.send(.post, "/v1/adventures/\(adventureID)/activities", key: key, body: body)
                #expect(registered.status == 201, "\(registered)")
                let again = try await api.send(.post, "/v1/adventures/\(adventureID)/activities", key: key, body: body)
                #expect(again.status == 200, "the same registration again changes nothing")
            }
            let recipients = try await store.recipients(of: AdventureID(adventureID))
            #expect(recipients.map(\.activityID) == ["act-0", "act-1", "act-2"])
            #expect(recipients.map(\.language) == ["vi", "ko", "zh-Hans"])
            #expect(recipients.map(\.frequentUpdates) == [true, false, false])

            // Bao's app reports a new token: it replaces the old one.
            let rotated = try await api.send(.put, "/v1/activities/act-1/token", key: keys[1], body: #"{"pushToken": "\#(token(99))"}"#)
            #expect(rotated.status == 200)
            #expect(try await store.liveActivity(ActivityID("act-1")).token?.hex == token(99))

            // Chae uses a potion on Power Panda: queued for the next tick, not applied.
            let potion = try await api.send(.post, "/v1/adventures/\(adventureID)/potions", key: keys[2], body: #"{"hero": "power-panda"}"#)
            #expect(potion.status == 202)
            #expect(try await store.pendingCommands(for: AdventureID(adventureID)).map(\.command)
                    == [.usePotion(player: PlayerID(ids[2]), hero: "power-panda")])
            #expect(try await store.adventure(AdventureID(adventureID)).state.potions == stored.state.potions)

            // A tick as the ticker plays it, then the reads show it.
            let inputs = try await store.tickInputs(of: AdventureID(adventureID))
            let game = try Adventure(setup: inputs.adventure.setup, content: server.resources.content.game)
            let (state, events) = game.tick(inputs.adventure.state, commands: inputs.commands.map(\.command))
            try await store.recordTick(adventure: AdventureID(adventureID), tick: 1, state: state, events: events,
                                       appliedCommandIDs: inputs.commands.map(\.id), outbox: [], ledgers: [:])

            let adventure = try await api.send(.get, "/v1/adventures/\(adventureID)", key: keys[1])
            #expect(adventure.status == 200)
            #expect(adventure.json["lastTick"].int == 1)
            #expect(adventure.json["state"]["potions"].int == state.potions)
            #expect(adventure.json["seed"] == .null, "players do not see the seed")
            let asGameMaster = try await api.send(.get, "/v1/adventures/\(adventureID)", key: TestServer.gameMasterKey)
            #expect(asGameMaster.json["seed"].string == "42")

            let timeline = try await api.send(.get, "/v1/adventures/\(adventureID)/events", key: keys[0])
            #expect(timeline.status == 200)
            #expect(timeline.json["events"].array.count == events.count)
            #expect(timeline.json["events"][0]["tick"].int == 1)
            #expect(timeline.json["events"][0]["time"].int == Int(TestServer.startTime.timeIntervalSince1970) + 2)
            // The potion was applied at this tick: Power Panda was unhurt, so the game refused it.
            #expect(timeline.json["events"][0]["event"]["type"].string == "potionRejected")
            #expect(timeline.json["events"][0]["event"]["reason"].string == "heroAtFullHealth")

            // The dispatcher sends Ana's start; the push log shows it.
            let claimed = try await store.claimOutbox(limit: 1, now: TestServer.startTime)
            try await store.recordDelivered(try #require(claimed.first), apnsID: "apns-1", at: TestServer.startTime)
            let pushes = try await api.send(.get, "/v1/adventures/\(adventureID)/pushes", key: keys[2])
            #expect(pushes.status == 200)
            #expect(pushes.json["pushes"].array.count == 1)
            #expect(pushes.json["pushes"][0]["targetID"].string == "ana-phone")
            #expect(pushes.json["pushes"][0]["status"].int == 200)
            #expect(!pushes.text.contains(token(1)), "tokens are not shown to other players")

            // The game master sees it running and ends it; the end waits for the next tick.
            let running = try await api.send(.get, "/v1/gm/adventures", key: TestServer.gameMasterKey)
            #expect(running.json["adventures"].array.compactMap { $0["id"].string } == [adventureID])
            let end = try await api.send(.post, "/v1/gm/adventures/\(adventureID)/end", key: TestServer.gameMasterKey)
            #expect(end.status == 202)
            #expect(end.json["type"].string == "endAdventure")
            #expect(try await store.pendingCommands(for: AdventureID(adventureID)).map(\.command) == [.endAdventure])

            // Chae's activity ends on the phone; then Chae leaves the party.
            let ended = try await api.send(.post, "/v1/activities/act-2/status", key: keys[2], body: #"{"status": "ended"}"#)
            #expect(ended.status == 200)
            #expect(try await store.liveActivity(ActivityID("act-2")).status == .ended)
            let left = try await api.send(.delete, "/v1/parties/\(partyID)/members/me", key: keys[2])
            #expect(left.status == 204)
            #expect(try await store.membership(of: PlayerID(ids[2]), in: PartyID(partyID)) == nil)
            let gone = try await api.send(.get, "/v1/parties/\(partyID)", key: keys[2])
            #expect(gone.status == 403)
            // Still in the roster, so the adventure stays readable to Chae.
            #expect(try await api.send(.get, "/v1/adventures/\(adventureID)", key: keys[2]).status == 200)
        }
    }
}
