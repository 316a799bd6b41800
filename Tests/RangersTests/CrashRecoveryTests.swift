import Catalog
import Foundation
import Game
import RangersClient
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
        let api = ServerAPI(base: "http://127.0.0.1:\(port)")

        var server = try await ServeProcess.start(database: database, port: port, gameMasterKey: Self.gameMasterKey, api: api)
        // Three players, a party, a Live Activity each, and a short adventure: one
        // tick a second for 14 seconds of game time.
        let (id, keys) = try await AdventureChecks.start(through: api, gameMasterKey: Self.gameMasterKey, label: "crash",
                                                          seed: 2024, timeLimit: 14)
        try await AdventureChecks.usePotion(id, hero: .egghead, key: keys[1], through: api)

        // Kill it once a few ticks are stored, with no chance to finish anything.
        try await api.waitFor("a few ticks", within: .seconds(30)) {
            try await api.client(Self.gameMasterKey).getAdventure(path: .init(adventureID: id)).ok.body.json.lastTick >= 5
        }
        server.kill()
        let store = try await database.open(asNode: false)
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

        #expect(try await store.commands(of: adventureID).count == 1, "the potion, applied once")
        try await AdventureChecks.expectPlayedAsIfUninterrupted(adventureID, in: store)
        let outbox = try await store.outbox(of: adventureID)
        let log = try await store.pushLog(of: adventureID)
        #expect(Set(log.map(\.outbox)) == Set(outbox.filter { $0.state == .sent }.map(\.id)))

        // And `rangers replay` reads it back from the same store and finds it identical.
        let storeOption = engine == .sqlite ? ["--db", database.location] : ["--database", database.location]
        let replay = try await RangersProcess.run(["replay", id] + storeOption)
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stdout.hasPrefix("identical: "), "\(replay.stdout)")
    }
}
