import Game
@testable import PushPolicy
import Testing
import Vocabulary

/// Of a tick's events, the rule that decides an activity's push is the first of
/// the table that applies to any of them, with the newest event it applies to,
/// whichever way the events are searched for it.
@Suite struct MostImportantRuleTests {
    @Test func isTheTablesFirstRuleThatAppliesWithItsNewestEvent() {
        // Two events of the same kind and hero, so that ties between events are tried.
        let events = Variants.events + [.damageTaken(hero: Variants.owner, boss: "boss", amount: 7),
                                        .smallHeal(healer: "healer", hero: Variants.teammate, amount: 2)]
        var compared = 0
        for hero in [Variants.owner, Variants.teammate, nil] as [HeroID?] {
            for first in events {
                for second in events {
                    let tick = [first, second]
                    let expected = PushRule.table.lazy.compactMap { rule in
                        tick.last { rule.applies(to: $0, hero: hero) }.map { (rule: rule, event: $0) }
                    }.first
                    let found = PushRule.mostImportant(of: tick, for: hero)
                    #expect(found.map { "\($0.rule.pattern) \(String(describing: $0.rule.audience))" }
                            == expected.map { "\($0.rule.pattern) \(String(describing: $0.rule.audience))" }, "\(tick), \(String(describing: hero))")
                    #expect(found?.event == expected?.event, "\(tick), \(String(describing: hero))")
                    compared += 1
                }
            }
        }
        #expect(compared > 1000)
    }
}
