import Game
import Testing

@Suite struct AdventureRulesTests {
    /// The first seed (of the trio in the Haunted Keep) in which `hero` is knocked
    /// down, and the tick at which that happens.
    func knockDown(of hero: HeroID) throws -> (Adventure, Int) {
        for seed in UInt64(1)...100 {
            let adventure = try Fixtures.adventure(seed: seed, route: "haunted-keep")
            for (state, events) in Fixtures.play(adventure) where state.isRunning {
                if events.contains(.heroKnockedDown(hero: hero, boss: state.boss.boss)) { return (adventure, state.tick) }
            }
        }
        Issue.record("\(hero) is never knocked down in 100 seeds")
        throw CancellationError()
    }

    @Test func potionRevivesAKnockedDownHeroAtTheNextTick() throws {
        let (adventure, downAt) = try knockDown(of: "spouty")
        let ticks = Fixtures.play(adventure, commands: [
            ScheduledCommand(tick: downAt + 1, command: .usePotion(player: "player-1", hero: "spouty")),
        ])
        let revived = ticks[downAt]
        let spouty = try #require(Fixtures.content.hero("spouty"))
        let amount = spouty.stats.maxHealth * Fixtures.content.rules.potionHealPercent / 100
        #expect(Array(revived.events.prefix(2)) == [
            .potionUsed(player: "player-1", hero: "spouty", amount: amount), .heroRevived(hero: "spouty"),
        ])
        #expect(revived.state.potions == Fixtures.content.rules.startingPotions - 1)
        // Revived, Spouty acts again in the same tick.
        #expect(revived.events.contains { if case .damageDealt("spouty", _, _, _) = $0 { true } else if case .criticalHit("spouty", _, _, _) = $0 { true } else { false } })
        // The command changed what happened from then on.
        #expect(Fixtures.play(adventure)[downAt].events != revived.events)
    }

    @Test func potionIsRejectedAtFullHealth() throws {
        let ticks = Fixtures.play(try Fixtures.adventure(seed: 3), commands: [
            ScheduledCommand(tick: 1, command: .usePotion(player: "player-2", hero: "egghead")),
        ])
        #expect(ticks[0].events.first == .potionRejected(player: "player-2", hero: "egghead", reason: .heroAtFullHealth))
        #expect(ticks[0].state.potions == Fixtures.content.rules.startingPotions)
    }

    @Test func potionIsRejectedWhenNoneAreLeft() throws {
        // Weak potions, so the hero is never healed to full by them.
        var rules = Fixtures.content.rules
        rules.potionHealPercent = 1
        let content = GameContent(heroes: Fixtures.content.heroes, bosses: Fixtures.content.bosses,
                                  routes: Fixtures.content.routes, rules: rules)
        let potions = rules.startingPotions
        let commands = (0...potions).map { _ in
            ScheduledCommand(tick: 20, command: .usePotion(player: "player-1", hero: "power-panda"))
        }
        let tick = Fixtures.play(try Fixtures.adventure(seed: 3, content: content), commands: commands)[19]
        let used = tick.events.filter { $0.kind == .potionUsed }.count
        let refused: GameEvent = .potionRejected(player: "player-1", hero: "power-panda", reason: .noPotionsLeft)
        #expect(used == potions)
        #expect(tick.events.filter { $0 == refused }.count == 1)
        #expect(tick.state.potions == 0)
    }

    @Test func potionForAHeroOutsideThePartyIsRejected() throws {
        let ticks = Fixtures.play(try Fixtures.adventure(), commands: [ScheduledCommand(tick: 2, command: .usePotion(player: "player-1", hero: "octo"))])
        #expect(ticks[1].events.first == .potionRejected(player: "player-1", hero: "octo", reason: .heroNotInParty))
    }

    @Test func gameMasterEndsTheAdventureAtTheGivenTick() throws {
        let ticks = Fixtures.play(try Fixtures.adventure(), commands: [ScheduledCommand(tick: 7, command: .endAdventure)])
        #expect(ticks.count == 7)
        #expect(ticks[6].events == [.adventureEndedByGameMaster(boss: ticks[6].state.boss.boss)])
        #expect(ticks[6].state.status == .endedByGameMaster)
    }

    @Test func timeLimitEndsTheAdventure() throws {
        let ticks = Fixtures.play(try Fixtures.adventure(tickInterval: 10, timeLimit: 35))
        #expect(ticks.count == 3)
        #expect(ticks[2].events.last == .timeLimitReached(boss: "thorn-wolf"))
        #expect(ticks[2].state.status == .timeLimitReached)
    }

    @Test func defeatingEveryBossIsAVictory() throws {
        let ticks = Fixtures.play(try Fixtures.adventure(seed: 42))
        let kinds = ticks.flatMap(\.events).map(\.kind)
        #expect(kinds.last == .victory)
        #expect(kinds.filter { $0 == .bossDefeated }.count == 3)
        #expect(kinds.filter { $0 == .nextBossAppears }.count == 2)
        let defeats = ticks.flatMap(\.events).compactMap { if case .bossDefeated(let boss, _, let rank) = $0 { (boss, rank) } else { nil } }
        #expect(defeats.map(\.0) == ["thorn-wolf", "goblin-chief", "old-treant"])
        #expect(defeats.map(\.1) == [.minion, .main, .main])
    }

    @Test func bossPhasesHappenOnceBelowTheirThresholds() throws {
        var boss = try #require(Fixtures.content.boss("ember-dragon"))  // enrage 35%, shield 25%
        boss.healPhase = HealPhase(belowHealthPercent: 50, healPercent: 10)
        let content = Fixtures.content(boss: boss)
        let ticks = Fixtures.play(try Fixtures.adventure(seed: 11, party: Fixtures.trio + [PartyMember(player: "player-4", hero: "octo")], route: "test", content: content))
        let events = ticks.flatMap(\.events)
        #expect(events.filter { $0.kind == .bossEnraged }.count == 1)
        #expect(events.filter { $0.kind == .bossShielded }.count == 1)
        #expect(events.filter { $0.kind == .bossHealed }.count == 1)
        // After the shield goes up, hits are partly blocked.
        let shieldedAt = try #require(events.firstIndex { $0.kind == .bossShielded })
        let blocked = events[shieldedAt...].compactMap { if case .damageDealt(_, _, _, let b) = $0 { b } else if case .criticalHit(_, _, _, let b) = $0 { b } else { nil } }
        #expect(blocked.reduce(0, +) == boss.maxHealth * 15 / 100)
    }

    @Test func magesIgnoreDefenseAndFightersDoNot() throws {
        var boss = try #require(Fixtures.content.boss("stone-golem"))
        boss.defense = 1_000
        boss.shieldPhase = nil
        let party = [PartyMember(player: "p1", hero: "mr-spook"), PartyMember(player: "p2", hero: "spouty")]
        let ticks = Fixtures.play(try Fixtures.adventure(party: party, route: "test", timeLimit: 600, content: Fixtures.content(boss: boss)))
        let hits = ticks.flatMap(\.events).compactMap { event -> (HeroID, Int)? in
            switch event {
            case .damageDealt(let hero, _, let amount, _), .criticalHit(let hero, _, let amount, _): (hero, amount)
            default: nil
            }
        }
        #expect(hits.filter { $0.0 == "spouty" }.allSatisfy { $0.1 == 1 })
        #expect(hits.filter { $0.0 == "mr-spook" }.allSatisfy { $0.1 > 10 })
        #expect(!hits.filter { $0.0 == "mr-spook" }.isEmpty)
    }

    @Test func tanksDrawMostStrikes() throws {
        var boss = try #require(Fixtures.content.boss("thorn-wolf"))
        boss.attack = 1
        boss.maxHealth = 1_000_000
        let ticks = Fixtures.play(try Fixtures.adventure(route: "test", timeLimit: 3_000, content: Fixtures.content(boss: boss)))
        let targets = ticks.flatMap(\.events).compactMap { if case .damageTaken(let hero, _, _) = $0 { hero } else { nil } }
        let onTank = targets.filter { $0 == "power-panda" }.count
        // Threat 3 against 1 + 1: the tank takes about 60% of 300 strikes.
        #expect(targets.count == 300)
        #expect((150...210).contains(onTank), "\(onTank)")
    }

    @Test(arguments: [
        ([], AdventureSetupError.partySize(0)),
        (Fixtures.content.heroes.map { PartyMember(player: "p", hero: $0.id) } + [PartyMember(player: "q", hero: "x")], .partySize(7)),
        ([PartyMember(player: "a", hero: "cake"), PartyMember(player: "b", hero: "cake")], .duplicateHero("cake")),
        ([PartyMember(player: "a", hero: "pikachu")], .unknownHero("pikachu")),
    ])
    func invalidPartiesAreRefused(party: [PartyMember], error: AdventureSetupError) {
        #expect(throws: error) { try Fixtures.adventure(party: party) }
    }

    @Test func invalidSetupsAreRefused() {
        #expect(throws: AdventureSetupError.unknownRoute("moon")) { try Fixtures.adventure(route: "moon") }
        #expect(throws: AdventureSetupError.tickInterval(0)) { try Fixtures.adventure(tickInterval: 0) }
        #expect(throws: AdventureSetupError.timeLimit(28_801, tickInterval: 10)) { try Fixtures.adventure(timeLimit: 28_801) }
        #expect(throws: AdventureSetupError.timeLimit(5, tickInterval: 10)) { try Fixtures.adventure(timeLimit: 5) }
    }

    @Test func eventsRoundTripThroughJSON() throws {
        for event in GameEvent.everyVariant {
            let decoded = try JSONDecoder().decode(GameEvent.self, from: JSONEncoder().encode(event))
            #expect(decoded == event)
        }
        let command = ScheduledCommand(tick: 4, command: .usePotion(player: "p", hero: "cake"))
        #expect(try JSONDecoder().decode(ScheduledCommand.self, from: JSONEncoder().encode(command)) == command)
    }

    @Test func eventsNameTheHeroesTheyConcern() {
        #expect(GameEvent.smallHeal(healer: "egghead", hero: "spouty", amount: 3).heroes == ["egghead", "spouty"])
        #expect(GameEvent.heroKnockedDown(hero: "cake", boss: "kraken").heroes == ["cake"])
        #expect(GameEvent.victory(boss: "kraken").concernsWholeParty)
        #expect(!GameEvent.damageTaken(hero: "cake", boss: "kraken", amount: 1).concernsWholeParty)
    }
}

import Foundation
