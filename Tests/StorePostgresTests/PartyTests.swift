import Foundation
import Game
import Store
import StorePostgres
import StoreTestSupport
import Testing
import Vocabulary

@Suite(.enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.skipped)))
struct PostgresPlayerAndPartyTests {
    func store() async throws -> PostgresStore {
        try await PostgresStore.open(try await PostgresTestServer.shared.freshDatabase())
    }

    func player(_ store: PostgresStore, _ name: String, heroes: [HeroID]) async throws -> (player: Player, key: String) {
        let (player, key) = try await store.createPlayer(name: name, at: Date())
        _ = try await store.pickHeroes(heroes, for: player.id)
        return (player, key)
    }

    @Test func playersAreKnownByTheirKeyAndPlayTheHeroesTheyPicked() async throws {
        let store = try await store()
        try await closing(store) {
            let (ana, key) = try await store.createPlayer(name: "  Ana  ", at: Date())
            #expect(ana.name == "Ana")
            #expect(try await store.player(authenticatedBy: key) == ana)
            let altered = key.dropLast() + (key.hasSuffix("A") ? "B" : "A")
            #expect(try await store.player(authenticatedBy: String(altered)) == nil)
            #expect(try await store.player(authenticatedBy: "nonsense") == nil)
            #expect(try await store.pickHeroes(["spouty", "egghead", "spouty"], for: ana.id) == ["egghead", "spouty"])
            #expect(try await store.heroes(of: ana.id) == ["egghead", "spouty"])
            await #expect(throws: StoreError.invalid("a name must not be empty or only spaces")) { try await store.createPlayer(name: " ", at: Date()) }
            await #expect(throws: StoreError.notFound("player", id: "ghost")) { try await store.heroes(of: "ghost") }
        }
    }

    @Test func aPartyIsJoinedByItsCodeWithOneOfOnesHeroesAndLeft() async throws {
        let store = try await store()
        try await closing(store) {
            let ana = try await player(store, "Ana", heroes: ["power-panda"])
            let bao = try await player(store, "Bao", heroes: ["egghead", "power-panda"])
            let party = try await store.createParty(name: "Rangers", by: ana.player.id, hero: "power-panda", at: Date())
            #expect(try await store.party(party.id) == party)
            let typed = party.inviteCode.rawValue.lowercased().prefix(4) + "-" + party.inviteCode.rawValue.suffix(4).lowercased()
            await #expect(throws: StoreError.self) {
                try await store.joinParty(inviteCode: String(typed), player: bao.player.id, hero: "power-panda", at: Date())
            }
            await #expect(throws: StoreError.forbidden("hero 'spouty' is not one of your heroes; pick it first")) {
                try await store.joinParty(inviteCode: party.inviteCode.rawValue, player: bao.player.id, hero: "spouty", at: Date())
            }
            let joined = try await store.joinParty(inviteCode: String(typed), player: bao.player.id, hero: "egghead", at: Date())
            #expect(try await store.joinParty(inviteCode: String(typed), player: bao.player.id, hero: "egghead", at: Date()) == joined,
                    "joining again changes nothing")
            #expect(try await store.members(of: party.id).map(\.player) == [ana.player.id, bao.player.id])
            #expect(try await store.parties(of: bao.player.id) == [party])
            await #expect(throws: StoreError.self) { try await store.pickHeroes(["power-panda"], for: bao.player.id) }
            try await store.leaveParty(party.id, player: bao.player.id, at: Date(), leaveChannelPush: { _ in nil })
            #expect(try await store.membership(of: bao.player.id, in: party.id) == nil)
            #expect(try await store.pickHeroes(["power-panda"], for: bao.player.id) == ["power-panda"])
        }
    }

    /// A party of five, twenty players joining at once: exactly one gets the last
    /// place (the party's row lock makes the joins take turns).
    @Test func twentySimultaneousJoinsToAPartyOfFiveLetExactlyOneIn() async throws {
        let store = try await store()
        try await closing(store) {
            let founder = try await player(store, "Founder", heroes: [HeroID("h0")])
            let party = try await store.createParty(name: "Almost full", by: founder.player.id, hero: HeroID("h0"), at: Date())
            for index in 1...4 {
                let member = try await player(store, "Member \(index)", heroes: [HeroID("h\(index)")])
                _ = try await store.joinParty(inviteCode: party.inviteCode.rawValue, player: member.player.id, hero: HeroID("h\(index)"), at: Date())
            }
            var newcomers: [PlayerID] = []
            for index in 0..<20 { newcomers.append(try await player(store, "Newcomer \(index)", heroes: [HeroID("n\(index)")]).player.id) }
            let results = await withTaskGroup(of: Result<PartyMembership, any Error>.self) { group in
                for (index, newcomer) in newcomers.enumerated() {
                    group.addTask {
                        await Result(catching: {
                            try await store.joinParty(inviteCode: party.inviteCode.rawValue, player: newcomer, hero: HeroID("n\(index)"), at: Date())
                        })
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.filter { if case .success = $0 { true } else { false } }.count == 1)
            for case .failure(let error) in results {
                #expect(error as? StoreError == .conflict("party 'Almost full' is full (6 members)"), "\(error)")
            }
            #expect(try await store.members(of: party.id).count == 6)
        }
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
