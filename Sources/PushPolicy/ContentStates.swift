import Catalog
import Foundation
import Game
import Wire

/// Turns the game's state into what the app's widget shows.
struct ContentStates {
    let adventureID: String
    let adventure: Adventure
    let routeName: String
    let strings: StringCatalog
    let startedAt: Int

    func attributes(for hero: HeroID) -> AdventureAttributes {
        AdventureAttributes(
            adventureID: adventureID,
            heroID: hero.rawValue,
            routeName: routeName,
            party: adventure.heroes.map { HeroSummary(id: $0.id.rawValue, name: $0.name, avatar: $0.avatar) },
            bosses: adventure.bosses.map { BossSummary(id: $0.id.rawValue, name: $0.name, avatar: $0.avatar) },
            endsAt: Date(timeIntervalSince1970: TimeInterval(startedAt + adventure.setup.timeLimit))
        )
    }

    func contentState(_ state: AdventureState, for hero: HeroID, latest: LocalizedText, language: String)
        -> AdventureAttributes.ContentState
    {
        let own = state.hero(hero)
        return AdventureAttributes.ContentState(
            currentHealthLevel: own.map { level($0.health, $0.maxHealth) } ?? 0,
            eventDescription: strings.format(latest, language: language),
            heroes: state.heroes.map {
                HeroStatus(id: $0.hero.rawValue, healthLevel: level($0.health, $0.maxHealth), isKnockedDown: $0.isKnockedDown)
            },
            boss: BossStatus(id: state.boss.boss.rawValue, healthLevel: level(state.boss.health, state.boss.maxHealth),
                             isEnraged: state.boss.enraged, position: state.bossIndex),
            latestEvent: EventText(key: latest.key, args: latest.args),
            potions: state.potions
        )
    }

    /// Health as 0…1 with three decimals: enough for any progress bar, and short JSON.
    private func level(_ health: Int, _ maxHealth: Int) -> Double {
        guard maxHealth > 0 else { return 0 }
        return (Double(health) * 1000 / Double(maxHealth)).rounded() / 1000
    }
}
