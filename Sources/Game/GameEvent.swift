import Vocabulary

public enum LootRarity: String, Codable, Sendable, CaseIterable {
    case common, rare, legendary
}

public enum PotionRejection: String, Codable, Sendable, CaseIterable {
    case noPotionsLeft, heroAtFullHealth, heroNotInParty
}

/// Something that happened in a tick. Each case names the heroes and boss it concerns.
public enum GameEvent: Hashable, Sendable {
    /// `blocked` is what a boss's shield absorbed; `amount` is what reached its health.
    case damageDealt(hero: HeroID, boss: BossID, amount: Int, blocked: Int)
    case criticalHit(hero: HeroID, boss: BossID, amount: Int, blocked: Int)
    /// A sweep begins; one `damageTaken` per hero follows.
    case areaAttack(boss: BossID)
    case damageTaken(hero: HeroID, boss: BossID, amount: Int)
    case smallHeal(healer: HeroID, hero: HeroID, amount: Int)
    case lootFound(hero: HeroID, rarity: LootRarity)
    case heroKnockedDown(hero: HeroID, boss: BossID)
    case potionUsed(player: PlayerID, hero: HeroID, amount: Int)
    case heroRevived(hero: HeroID)
    case potionRejected(player: PlayerID, hero: HeroID, reason: PotionRejection)
    case bossEnraged(boss: BossID)
    case bossHealed(boss: BossID, amount: Int)
    case bossShielded(boss: BossID, amount: Int)
    /// `hero` landed the final blow.
    case bossDefeated(boss: BossID, hero: HeroID, rank: BossRank)
    case nextBossAppears(boss: BossID)
    case victory(boss: BossID)
    case partyWiped(boss: BossID)
    case timeLimitReached(boss: BossID)
    case adventureEndedByGameMaster(boss: BossID)

    public var kind: Kind {
        switch self {
        case .damageDealt: .damageDealt
        case .criticalHit: .criticalHit
        case .areaAttack: .areaAttack
        case .damageTaken: .damageTaken
        case .smallHeal: .smallHeal
        case .lootFound: .lootFound
        case .heroKnockedDown: .heroKnockedDown
        case .potionUsed: .potionUsed
        case .heroRevived: .heroRevived
        case .potionRejected: .potionRejected
        case .bossEnraged: .bossEnraged
        case .bossHealed: .bossHealed
        case .bossShielded: .bossShielded
        case .bossDefeated: .bossDefeated
        case .nextBossAppears: .nextBossAppears
        case .victory: .victory
        case .partyWiped: .partyWiped
        case .timeLimitReached: .timeLimitReached
        case .adventureEndedByGameMaster: .adventureEndedByGameMaster
        }
    }

    public enum Kind: String, Codable, Sendable, CaseIterable {
        case damageDealt, criticalHit, areaAttack, damageTaken, smallHeal, lootFound
        case heroKnockedDown, potionUsed, heroRevived, potionRejected
        case bossEnraged, bossHealed, bossShielded, bossDefeated, nextBossAppears
        case victory, partyWiped, timeLimitReached, adventureEndedByGameMaster

        /// Events after which the adventure is over.
        public var endsAdventure: Bool {
            switch self {
            case .victory, .partyWiped, .timeLimitReached, .adventureEndedByGameMaster: true
            default: false
            }
        }
    }

    /// The heroes this event is about. Empty for events about the whole party
    /// (`concernsWholeParty`) or only about the boss.
    public var heroes: [HeroID] {
        switch self {
        case .damageDealt(let hero, _, _, _), .criticalHit(let hero, _, _, _),
             .damageTaken(let hero, _, _), .lootFound(let hero, _), .heroKnockedDown(let hero, _),
             .potionUsed(_, let hero, _), .heroRevived(let hero), .potionRejected(_, let hero, _),
             .bossDefeated(_, let hero, _):
            [hero]
        case .smallHeal(let healer, let hero, _):
            healer == hero ? [hero] : [healer, hero]
        case .areaAttack, .bossEnraged, .bossHealed, .bossShielded, .nextBossAppears,
             .victory, .partyWiped, .timeLimitReached, .adventureEndedByGameMaster:
            []
        }
    }

    public var concernsWholeParty: Bool {
        switch kind {
        case .areaAttack, .bossDefeated, .nextBossAppears, .victory, .partyWiped,
             .timeLimitReached, .adventureEndedByGameMaster:
            true
        default:
            false
        }
    }

    public var boss: BossID? {
        switch self {
        case .damageDealt(_, let boss, _, _), .criticalHit(_, let boss, _, _), .areaAttack(let boss),
             .damageTaken(_, let boss, _), .heroKnockedDown(_, let boss), .bossEnraged(let boss),
             .bossHealed(let boss, _), .bossShielded(let boss, _), .bossDefeated(let boss, _, _),
             .nextBossAppears(let boss), .victory(let boss), .partyWiped(let boss),
             .timeLimitReached(let boss), .adventureEndedByGameMaster(let boss):
            boss
        case .smallHeal, .lootFound, .potionUsed, .heroRevived, .potionRejected:
            nil
        }
    }
}
