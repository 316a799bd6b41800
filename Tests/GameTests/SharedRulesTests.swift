import Game
import Testing
import Vocabulary

/// A node holding thousands of adventures keeps one copy of the rules per route
/// and heroes: an adventure made sharing another's plays exactly as one resolved
/// on its own.
@Suite struct SharedRulesTests {
    func setup(seed: UInt64, party: [PartyMember] = Fixtures.trio, route: RouteID = "haunted-keep") -> AdventureSetup {
        AdventureSetup(route: route, party: party, tickInterval: 1, timeLimit: AdventureSetup.longestTimeLimit, seed: seed)
    }

    @Test func anAdventureSharingAnothersRulesPlaysAsIfResolvedAlone() throws {
        let first = try Adventure(setup: setup(seed: 1), content: Fixtures.content)
        for seed in UInt64(2)...12 {
            // Other players, another seed: the same route and heroes.
            let party = Fixtures.trio.map { PartyMember(player: PlayerID("\($0.player.rawValue)-\(seed)"), hero: $0.hero) }
            let shared = try Adventure(setup: setup(seed: seed, party: party), content: Fixtures.content, sharingWith: first)
            let alone = try Adventure(setup: setup(seed: seed, party: party), content: Fixtures.content)
            #expect(shared.sharesRules(with: first))
            #expect(!alone.sharesRules(with: first))
            let commands = [ScheduledCommand(tick: 3, command: .endAdventure)].filter { _ in seed == 12 }
            #expect(Fixtures.log(Fixtures.play(shared, commands: commands))
                    == Fixtures.log(Fixtures.play(alone, commands: commands)), "seed \(seed)")
        }
    }

    @Test func anotherRouteOrOrderOfHeroesIsResolvedAnew() throws {
        let first = try Adventure(setup: setup(seed: 1), content: Fixtures.content)
        let reordered = try Adventure(setup: setup(seed: 1, party: Array(Fixtures.trio.reversed())), content: Fixtures.content,
                                      sharingWith: first)
        let elsewhere = try Adventure(setup: setup(seed: 1, route: "whispering-woods"), content: Fixtures.content, sharingWith: first)
        #expect(!reordered.sharesRules(with: first))
        #expect(!elsewhere.sharesRules(with: first))
        #expect(Fixtures.log(Fixtures.play(reordered))
                == Fixtures.log(Fixtures.play(try Adventure(setup: setup(seed: 1, party: Array(Fixtures.trio.reversed())),
                                                                 content: Fixtures.content))))
        // A setup the content refuses is refused however it is made.
        #expect(throws: AdventureSetupError.self) {
            try Adventure(setup: setup(seed: 1, party: []), content: Fixtures.content, sharingWith: first)
        }
    }
}
