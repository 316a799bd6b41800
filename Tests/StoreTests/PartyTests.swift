import Foundation
import Game
import Store
import StoreTestSupport
import Testing
import Vocabulary

@Suite(.closesStores) struct PartyTests {
    /// Six players who each picked all six heroes.
    private func sixPlayers(_ store: any RangersStore) async throws -> [PlayerID] {
        var players: [PlayerID] = []
        for index in 0..<7 {
            let player = try await store.createPlayer(name: "Player \(index)").player.id
            try await store.pickHeroes(heroes, for: player)
            players.append(player)
        }
        return players
    }

    private let heroes: [HeroID] = ["power-panda", "egghead", "spouty", "hero-4", "hero-5", "hero-6", "hero-7"]

    @Test(arguments: StoreEngine.available) func aSeventhMemberIsRefusedAndTheSixStay(engine: StoreEngine) async throws {
        let store = try await engine.open()
        let players = try await sixPlayers(store)
        let party = try await store.createParty(name: "Big", by: players[0], hero: heroes[0])
        for index in 1..<6 {
            try await store.joinParty(inviteCode: party.inviteCode.rawValue, player: players[index], hero: heroes[index])
        }
        await #expect(throws: StoreError.conflict("party 'Big' is full (6 members)")) {
            try await store.joinParty(inviteCode: party.inviteCode.rawValue, player: players[6], hero: heroes[6])
        }
        let members = try await store.members(of: party.id)
        #expect(members.map(\.player) == Array(players.prefix(6)))
        #expect(try await store.parties(of: players[6]).isEmpty)
    }

    @Test(arguments: StoreEngine.available) func aHeroCanBeInAPartyOnlyOnce(engine: StoreEngine) async throws {
        let store = try await engine.open()
        let players = try await sixPlayers(store)
        let party = try await store.createParty(name: "Pandas", by: players[0], hero: "power-panda")
        await #expect(throws: StoreError.conflict("hero 'power-panda' is already in party 'Pandas'")) {
            try await store.joinParty(inviteCode: party.inviteCode.rawValue, player: players[1], hero: "power-panda")
        }
        #expect(try await store.members(of: party.id).count == 1)
    }

    @Test(arguments: StoreEngine.available) func anUnknownOrMalformedInviteCodeIsNotFound(engine: StoreEngine) async throws {
        let store = try await engine.open()
        let players = try await sixPlayers(store)
        let party = try await store.createParty(name: "P", by: players[0], hero: "egghead")
        let unknown = party.inviteCode.rawValue == "ABCDEFGH" ? "ABCDEFGJ" : "ABCDEFGH"
        for code in [unknown, "0000OOOO", "short", "", String(repeating: "A", count: 1000)] {
            let error = await #expect(throws: StoreError.self) {
                try await store.joinParty(inviteCode: code, player: players[1], hero: "spouty")
            }
            guard case .notFound("invite code", _)? = error else {
                Issue.record("invite code '\(code)': expected notFound, got \(String(describing: error))")
                continue
            }
        }
        #expect(try await store.members(of: party.id).count == 1)
    }

    @Test(arguments: StoreEngine.available) func anInviteCodeIsUnambiguousAndAcceptedAsPeopleTypeIt(engine: StoreEngine) async throws {
        let store = try await engine.open()
        let players = try await sixPlayers(store)
        let party = try await store.createParty(name: "P", by: players[0], hero: "egghead")
        let code = party.inviteCode.rawValue
        #expect(code.count == 8)
        #expect(code.allSatisfy { !"0O1I".contains($0) })
        let typed = code.prefix(4).lowercased() + " - " + code.suffix(4).lowercased()
        let joined = try await store.joinParty(inviteCode: typed, player: players[1], hero: "spouty")
        #expect(joined.party == party.id)
        // Joining again with the same hero is the same membership, not an error.
        #expect(try await store.joinParty(inviteCode: code, player: players[1], hero: "spouty") == joined)
        await #expect(throws: StoreError.conflict("you are already in party 'P' with hero 'spouty'")) {
            try await store.joinParty(inviteCode: code, player: players[1], hero: "power-panda")
        }
    }

    @Test(arguments: StoreEngine.available) func onlyAPickedHeroCanJoin(engine: StoreEngine) async throws {
        let store = try await engine.open()
        let ana = try await store.createPlayer(name: "Ana").player.id
        try await store.pickHeroes(["egghead"], for: ana)
        await #expect(throws: StoreError.forbidden("hero 'spouty' is not one of your heroes; pick it first")) {
            try await store.createParty(name: "P", by: ana, hero: "spouty")
        }
        #expect(try await store.parties(of: ana).isEmpty)
    }

    @Test(arguments: StoreEngine.available) func noOneJoinsDuringAnAdventureButAnyoneMayLeave(engine: StoreEngine) async throws {
        let store = try await engine.open()
        let trio = try await Trio.make(in: store)
        let newcomer = try await store.createPlayer(name: "Dan").player.id
        try await store.pickHeroes(["hero-4"], for: newcomer)
        let adventure = try await trio.startAdventure()
        await #expect(throws: StoreError.conflict("party 'Rangers' is on an adventure; join when it has ended")) {
            try await store.joinParty(inviteCode: trio.party.inviteCode.rawValue, player: newcomer, hero: "hero-4")
        }

        try await store.leaveParty(trio.party.id, player: trio.players[2].id)
        #expect(try await store.members(of: trio.party.id).map(\.hero) == ["power-panda", "egghead"])
        // The roster of the running adventure is what it started with.
        #expect(try await store.adventure(adventure.id).setup.party == trio.roster)
        await #expect(throws: StoreError.self) {
            try await store.leaveParty(trio.party.id, player: trio.players[2].id)
        }
        #expect(try await store.membership(of: trio.players[0].id, in: trio.party.id)?.hero == "power-panda")
        #expect(try await store.membership(of: trio.players[2].id, in: trio.party.id) == nil)
    }

    @Test(arguments: StoreEngine.available) func aPartyHasAtMostOneRunningAdventure(engine: StoreEngine) async throws {
        let store = try await engine.open()
        let trio = try await Trio.make(in: store)
        let first = try await trio.startAdventure()
        await #expect(throws: StoreError.conflict("party 'Rangers' already has adventure \(first.id) running")) {
            try await trio.startAdventure(seed: 8)
        }
        #expect(try await store.runningAdventures().map(\.id) == [first.id])
        #expect(try await store.adventures(of: trio.party.id).count == 1)
    }

    @Test(arguments: StoreEngine.available) func aRosterMustBeMadeOfTheParty(engine: StoreEngine) async throws {
        let store = try await engine.open()
        let trio = try await Trio.make(in: store)
        var setup = trio.setup()
        // Bao and Chae swap heroes: a valid party for the game, but not this party.
        setup.party[1] = PartyMember(player: trio.players[1].id, hero: "spouty")
        setup.party[2] = PartyMember(player: trio.players[2].id, hero: "egghead")
        let game = try Adventure(setup: setup, content: ShippedContent.game)
        await #expect(throws: StoreError.self) {
            try await store.startAdventure(party: trio.party.id, setup: setup, state: game.start(), startedAt: 0,
                                           contentVersion: "v", outbox: [])
        }
        #expect(try await store.runningAdventures().isEmpty)
    }
}
