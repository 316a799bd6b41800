import Catalog
import Foundation
import Game
import Store
import StorePostgres
import StoreTestSupport
import Testing
import Vocabulary

@Suite(.enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.skipped)))
struct PostgresAdventureTests {
    /// A store with a party of three, and its roster.
    func party() async throws -> (PostgresStore, Party, [PartyMember]) {
        let store = try await PostgresStore.open(try await PostgresTestServer.shared.freshDatabase())
        let (party, roster) = try await Self.party(named: "Rangers", in: store)
        return (store, party, roster)
    }

    func setup(_ roster: [PartyMember], seed: UInt64 = 7) -> AdventureSetup {
        AdventureSetup(route: "whispering-woods", party: roster, tickInterval: 10, timeLimit: 3600, seed: seed)
    }

    static let game = try! LoadedContent.load(from: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Content")).game

    func start(_ roster: [PartyMember]) throws -> AdventureState {
        try Adventure(setup: setup(roster), content: Self.game).start()
    }

    @Test func anAdventureIsStoredAtTickZeroAndReadBack() async throws {
        let (store, party, roster) = try await party()
        try await closing(store) {
            let state = try start(roster)
            let stored = try await store.startAdventure(id: "adv-1", party: party.id, setup: setup(roster), state: state,
                                                        startedAt: 1_767_225_600, contentVersion: "4583f2f60f69852d", outbox: [], at: Date())
            #expect(stored.setup == setup(roster) && stored.state == state && stored.lastTick == 0)
            #expect(stored.nextTickAt == 1_767_225_610)
            #expect(try await store.adventure("adv-1") == stored)
            #expect(try await store.runningAdventures() == [stored])
            #expect(try await store.adventures(of: party.id) == [stored])
            await #expect(throws: StoreError.conflict("party 'Rangers' already has adventure adv-1 running")) {
                try await store.startAdventure(id: "adv-2", party: party.id, setup: setup(roster), state: state, startedAt: 1_767_225_600,
                                               contentVersion: "4583f2f60f69852d", outbox: [], at: Date())
            }
            var tooLong = setup(roster)
            tooLong.timeLimit = AdventureSetup.longestTimeLimit + 1
            await #expect(throws: StoreError.self) {
                try await store.startAdventure(id: "adv-3", party: party.id, setup: tooLong, state: state, startedAt: 1_767_225_600,
                                               contentVersion: "4583f2f60f69852d", outbox: [], at: Date())
            }
            let potion = try await store.enqueueCommand(.usePotion(player: roster[0].player, hero: "egghead"), for: "adv-1",
                                                        receivedAt: Date())
            #expect(potion.command == .usePotion(player: roster[0].player, hero: "egghead"))
        }
    }

    /// Eight parties, eight game masters starting each one's adventure at the same
    /// moment: each party has one adventure running, the others were refused.
    @Test func oneRunningAdventurePerPartyWhoeverStartsAtOnce() async throws {
        let (store, first, firstRoster) = try await party()
        try await closing(store) {
            var parties = [(first, firstRoster)]
            for index in 1..<8 { parties.append(try await Self.party(named: "Party \(index)", in: store)) }
            let attempts = parties.flatMap { party, roster in (0..<8).map { (party, roster, $0) } }
            let results = await withTaskGroup(of: Result<StoredAdventure, any Error>.self) { group in
                for (party, roster, attempt) in attempts {
                    let state = try! Adventure(setup: setup(roster), content: Self.game).start()
                    group.addTask {
                        await Result(catching: {
                            try await store.startAdventure(id: AdventureID("\(party.id)-\(attempt)"), party: party.id,
                                                           setup: setup(roster), state: state, startedAt: 1_767_225_600,
                                                           contentVersion: "c", outbox: [], at: Date())
                        })
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            let running = try await store.runningAdventures()
            #expect(running.count == parties.count)
            #expect(Set(running.map(\.party)).count == parties.count)
            #expect(results.filter { if case .success = $0 { true } else { false } }.count == parties.count)
            for case .failure(let error) in results {
                guard case .conflict = error as? StoreError else { Issue.record("\(error)"); continue }
            }
        }
    }

    static func party(named name: String, in store: PostgresStore) async throws -> (Party, [PartyMember]) {
        var roster: [PartyMember] = []
        var party: Party?
        for base in ["power-panda", "egghead", "spouty"] {
            let hero = HeroID(base)
            let (player, _) = try await store.createPlayer(name: "\(name) \(base)", at: Date())
            _ = try await store.pickHeroes([hero], for: player.id)
            if let party {
                _ = try await store.joinParty(inviteCode: party.inviteCode.rawValue, player: player.id, hero: hero, at: Date())
            } else {
                party = try await store.createParty(name: name, by: player.id, hero: hero, at: Date())
            }
            roster.append(PartyMember(player: player.id, hero: hero))
        }
        return (party!, roster)
    }

    /// Ten game masters ending it at once: the end is queued once.
    @Test func aGameMastersEndIsQueuedOnceWhoeverAsksAtOnce() async throws {
        let (store, party, roster) = try await party()
        try await closing(store) {
            let state = try start(roster)
            _ = try await store.startAdventure(id: "adv", party: party.id, setup: setup(roster), state: state,
                                               startedAt: 1_767_225_600, contentVersion: "c", outbox: [], at: Date())
            let ends = try await withThrowingTaskGroup(of: CommandID.self) { group in
                for _ in 0..<10 { group.addTask { try await store.endAdventureRequested("adv", at: Date()).id } }
                return try await group.reduce(into: Set<CommandID>()) { $0.insert($1) }
            }
            #expect(ends.count == 1)
        }
    }
}
