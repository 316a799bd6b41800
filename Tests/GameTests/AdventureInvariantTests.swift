import Game
import Testing

/// Properties that must hold for every adventure, checked over many seeds,
/// every route, parties of every size and random potion commands.
@Suite struct AdventureInvariantTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var seed: UInt64
        var route: RouteID
        var party: [PartyMember]
        var commands: [ScheduledCommand]
        var testDescription: String { "seed \(seed), \(route), \(party.count) heroes, \(commands.count) commands" }
    }

    /// 240 adventures, drawn from their own seeded generator so the cases never change.
    static let cases: [Case] = {
        var draw = SeededRandom(seed: 2026)
        let heroes = Fixtures.content.heroes.map(\.id)
        let routes = Fixtures.content.routes.map(\.id)
        return (0..<240).map { index in
            let size = 1 + index % 6
            var pool = heroes
            let party = (0..<size).map { slot in
                PartyMember(player: PlayerID("player-\(slot + 1)"), hero: pool.remove(at: draw.int(below: pool.count)))
            }
            let commands = (0..<draw.int(below: 8)).map { _ in
                let member = party[draw.int(below: party.count)]
                let target = party[draw.int(below: party.count)]
                return ScheduledCommand(tick: 1 + draw.int(below: 200),
                                        command: .usePotion(player: member.player, hero: target.hero))
            }
            return Case(seed: draw.next(), route: routes[index % routes.count], party: party, commands: commands)
        }
    }()

    @Test(arguments: cases)
    func invariantsHold(_ c: Case) throws {
        let adventure = try Fixtures.adventure(seed: c.seed, party: c.party, route: c.route)
        var previous = adventure.start()
        var endings = 0
        var ticks = 0
        adventure.playToEnd(commands: c.commands) { state, events in
            ticks += 1
            #expect(state.tick == previous.tick + 1)
            // Health stays within 0…max for heroes and the boss.
            for hero in state.heroes { #expect((0...hero.maxHealth).contains(hero.health), "\(hero)") }
            #expect((0...state.boss.maxHealth).contains(state.boss.health))
            #expect(state.potions >= 0)

            // A knocked-down hero does not act until revived, and nobody acts twice in a tick.
            var down = Set(previous.heroes.filter(\.isKnockedDown).map(\.hero))
            var acted = Set<HeroID>()
            for event in events {
                switch event {
                case .heroRevived(let hero): down.remove(hero)
                case .heroKnockedDown(let hero, _): down.insert(hero)
                case .damageDealt(let hero, _, _, _), .criticalHit(let hero, _, _, _), .smallHeal(let hero, _, _):
                    #expect(!down.contains(hero), "tick \(state.tick): \(hero) acted while knocked down")
                    #expect(acted.insert(hero).inserted, "tick \(state.tick): \(hero) acted twice")
                default: break
                }
                if event.kind.endsAdventure { endings += 1 }
            }
            #expect(events.last?.kind.endsAdventure ?? false == !state.isRunning)
            previous = state
        }
        // The adventure always ends, with exactly one ending, within the time limit.
        #expect(!previous.isRunning)
        #expect(endings == 1)
        #expect(ticks <= adventure.setup.lastTick)
    }

    @Test(arguments: cases.prefix(60))
    func sameInputsGiveByteIdenticalLogs(_ c: Case) throws {
        let first = Fixtures.log(Fixtures.play(try Fixtures.adventure(seed: c.seed, party: c.party, route: c.route), commands: c.commands))
        let second = Fixtures.log(Fixtures.play(try Fixtures.adventure(seed: c.seed, party: c.party, route: c.route), commands: c.commands))
        #expect(first == second)
    }

    @Test func differentSeedsGiveDifferentAdventures() throws {
        let logs = Set(try (1...20).map { Fixtures.log(Fixtures.play(try Fixtures.adventure(seed: UInt64($0)))) })
        #expect(logs.count == 20)
    }

    @Test func resumingFromAStoredStateContinuesIdentically() throws {
        let adventure = try Fixtures.adventure(seed: 5)
        let whole = Fixtures.play(adventure)
        // Stop after tick 30, encode the state as the server stores it, and go on.
        var state = try JSONDecoder().decode(AdventureState.self, from: JSONEncoder().encode(whole[29].state))
        var resumed: [[GameEvent]] = []
        while state.isRunning {
            let (next, events) = adventure.tick(state)
            state = next
            resumed.append(events)
        }
        #expect(resumed == whole.dropFirst(30).map(\.events))
    }
}

import Foundation
import Vocabulary
