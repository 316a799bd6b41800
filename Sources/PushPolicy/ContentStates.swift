import Catalog
import Game
import Wire

/// Turns the game's state into what the app's widget shows.
struct ContentStates {
    let routeName: String
    let strings: StringCatalog

    /// For a follower (`hero` nil) `currentHealthLevel` is the whole party's:
    /// the same state for every follower of a language, naming no hero of theirs.
    func contentState(_ state: AdventureState, for hero: HeroID?, latest: LocalizedText, language: String)
        -> AdventureAttributes.ContentState
    {
        let current: Double
        if let hero {
            current = state.hero(hero).map { level($0.health, $0.maxHealth) } ?? 0
        } else {
            current = (Self.partyHealth(state) * 1000).rounded() / 1000
        }
        return AdventureAttributes.ContentState(
            currentHealthLevel: current,
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

    /// The party's health taken together, 0…1: what a follower's activity shows as its own.
    static func partyHealth(_ state: AdventureState) -> Double {
        let maxHealth = state.heroes.reduce(0) { $0 + $1.maxHealth }
        guard maxHealth > 0 else { return 0 }
        return Double(state.heroes.reduce(0) { $0 + $1.health }) / Double(maxHealth)
    }

    /// Health as 0…1 with three decimals: enough for any progress bar, and short JSON.
    private func level(_ health: Int, _ maxHealth: Int) -> Double {
        guard maxHealth > 0 else { return 0 }
        return (Double(health) * 1000 / Double(maxHealth)).rounded() / 1000
    }
}
