import Catalog
import Foundation
import Game
import Store
import StoreTestSupport
import Testing
import Vocabulary

/// `rangers serve` killed with SIGKILL in the middle of an adventure and started
/// again on the same database: nothing committed is lost, nothing is played twice,
/// and the adventure ends exactly as an uninterrupted run with the same inputs.
@Suite(.closesStores) struct CrashRecoveryTests {
    static let gameMasterKey = "fedcba9876543210fedcba9876543210"

    @Test(arguments: StoreEngine.available) func aServerKilledMidAdventureGoesOnFromItsLastCommittedTick(engine: StoreEngine) async throws {
        let database = try await engine.database()
        let port = 20_000 + Int.random(in: 0..<20_000)
        let api = HTTP(base: "http://127.0.0.1:\(port)")

        var server = try await ServeProcess.start(database: database, port: port, gameMasterKey: Self.gameMasterKey, api: api)
        // Three players, a party, a Live Activity each, and a short adventure: one
        // tick a second for 24 seconds of game time.
        var keys: [String] = []
        for (name, hero) in [("Ana", "power-panda"), ("Bao", "egghead"), ("Chae", "spouty")] {
            let player = try await api.json("POST", "/v1/players", body: ["name": name])
            let key = try #require(player["apiKey"] as? String)
            _ = try await api.json("PUT", "/v1/players/me/heroes", key: key, body: ["heroes": [hero]])
            keys.append(key)
        }
        let party = try await api.json("POST", "/v1/parties", key: keys[0], body: ["name": "Crash test", "hero": "power-panda"])
        let partyID = try #require(party["id"] as? String)
        for (key, hero) in zip(keys[1...], ["egghead", "spouty"]) {
            _ = try await api.json("POST", "/v1/parties/join", key: key, body: ["inviteCode": party["inviteCode"]!, "hero": hero])
        }
        let started = try await api.json("POST", "/v1/gm/adventures", key: Self.gameMasterKey, body: [
            "partyID": partyID, "route": "whispering-woods", "tickInterval": 1, "timeLimit": 24, "seed": 2024,
        ])
        let id = try #require(started["id"] as? String)
        for (index, (key, hero)) in zip(keys, ["power-panda", "egghead", "spouty"]).enumerated() {
            _ = try await api.json("POST", "/v1/adventures/\(id)/activities", key: key, body: [
                "activityID": "crash-activity-\(index)", "pushToken": String(repeating: "c\(index)", count: 32),
                "hero": hero, "frequentPushesEnabled": index == 0, "locale": "en-US",
            ])
        }
        _ = try await api.json("POST", "/v1/adventures/\(id)/potions", key: keys[1], body: ["hero": "egghead"])

        // Kill it once a few ticks are stored, with no chance to finish anything.
        try await api.waitFor("a few ticks", within: .seconds(30)) {
            try await api.json("GET", "/v1/adventures/\(id)", key: Self.gameMasterKey)["lastTick"] as? Int ?? 0 >= 5
        }
        server.kill()
        let store = try await database.open()
        let adventureID = AdventureID(id)
        let atKill = try await store.adventure(adventureID)
        let eventsAtKill = try await store.events(of: adventureID)
        #expect(atKill.status == .running, "killed mid-adventure")

        // Down for a few seconds of game time; then the same command again.
        try await Task.sleep(for: .seconds(3))
        server = try await ServeProcess.start(database: database, port: port, gameMasterKey: Self.gameMasterKey, api: api)
        defer { server.kill() }
        // The killed process's claims go back once it is seen to be gone: at once on
        // SQLite (one process per file), when its heartbeat lapses on PostgreSQL.
        try await api.waitFor("the adventure's end and every push sent", within: .seconds(60)) {
            let adventure = try await store.adventure(adventureID)
            let outbox = try await store.outbox(of: adventureID)
            return adventure.status != .running && outbox.allSatisfy { $0.state != .pending && $0.state != .sending }
        }

        let final = try await store.adventure(adventureID)
        let events = try await store.events(of: adventureID)
        #expect(final.lastTick > atKill.lastTick)
        #expect(Array(events.prefix(eventsAtKill.count)) == eventsAtKill, "what was committed before the kill is kept as it was")

        // The uninterrupted run: same setup, same commands at the ticks they were applied.
        let commands = try await store.commands(of: adventureID)
        #expect(commands.count == 1, "the potion, applied once")
        let content = try LoadedContent.load(from: RangersProcess.repositoryRoot.appendingPathComponent("Content"))
        let adventure = try Adventure(setup: final.setup, content: content.game)
        var uninterrupted: [String] = []
        let finalState = adventure.playToEnd(commands: commands) { state, tickEvents in
            uninterrupted += tickEvents.enumerated().map { "\(state.tick).\($0.offset) \($0.element)" }
        }
        #expect(events.map { "\($0.tick).\($0.position) \($0.event)" } == uninterrupted)
        #expect(final.state == finalState)
        #expect(final.lastTick == finalState.tick)

        // Every push decided, before the kill or after, went out, or was superseded by
        // a newer state for the same activity that went out: each activity's end included.
        let outbox = try await store.outbox(of: adventureID)
        #expect(outbox.count { $0.message.isEnd && $0.state == .sent } == 3)
        for entry in outbox where entry.state != .sent {
            #expect(entry.state == .superseded, "\(entry.id) \(entry.state) \(entry.outcome ?? "")")
            #expect(outbox.contains { $0.message.target == entry.message.target && $0.id > entry.id && $0.state == .sent })
        }
        let log = try await store.pushLog(of: adventureID)
        #expect(Set(log.map(\.outbox)) == Set(outbox.filter { $0.state == .sent }.map(\.id)))

        // And `rangers replay` reads it back from the same store and finds it identical.
        let storeOption = engine == .sqlite ? ["--db", database.location] : ["--database", database.location]
        let replay = try await RangersProcess.run(["replay", id] + storeOption)
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stdout.hasPrefix("identical: "), "\(replay.stdout)")
    }
}
