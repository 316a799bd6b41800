import Vocabulary

/// A text the phone shows in the player's language: a key of the string catalog
/// (Content/Localizable.xcstrings) and the arguments for its `%@` placeholders.
/// Arguments are always strings, because that is what APNs `loc-args` carry.
public struct LocalizedText: Hashable, Codable, Sendable {
    public var key: String
    public var args: [String]

    public init(key: String, args: [String] = []) {
        self.key = key
        self.args = args
    }
}

extension GameEvent {
    /// The catalog entry that describes this event, with hero and boss names from `content`.
    public func text(names content: GameContent) -> LocalizedText {
        text(heroName: { content.hero($0)?.name ?? $0.rawValue },
             bossName: { content.boss($0)?.name ?? $0.rawValue })
    }

    public func text(heroName hero: (HeroID) -> String, bossName boss: (BossID) -> String) -> LocalizedText {
        let key = "event." + textKeySuffix
        switch self {
        case .damageDealt(let h, let b, let amount, _), .criticalHit(let h, let b, let amount, _):
            return LocalizedText(key: key, args: [hero(h), boss(b), String(amount)])
        case .damageTaken(let h, let b, let amount):
            return LocalizedText(key: key, args: [hero(h), String(amount), boss(b)])
        case .smallHeal(let healer, let h, let amount):
            return LocalizedText(key: key, args: [hero(healer), hero(h), String(amount)])
        case .lootFound(let h, _), .heroKnockedDown(let h, _), .potionUsed(_, let h, _),
             .heroRevived(let h), .potionRejected(_, let h, _):
            return LocalizedText(key: key, args: [hero(h)])
        case .bossHealed(let b, let amount), .bossShielded(let b, let amount):
            return LocalizedText(key: key, args: [boss(b), String(amount)])
        case .areaAttack(let b), .bossEnraged(let b), .bossDefeated(let b, _, _), .nextBossAppears(let b):
            return LocalizedText(key: key, args: [boss(b)])
        case .victory, .partyWiped, .timeLimitReached, .adventureEndedByGameMaster:
            return LocalizedText(key: key)
        }
    }

    private var textKeySuffix: String {
        switch self {
        case .lootFound(_, let rarity): "lootFound.\(rarity.rawValue)"
        case .potionRejected(_, _, let reason): "potionRejected.\(reason.rawValue)"
        default: kind.rawValue
        }
    }

    /// One event of every kind and variant, so that every text the game can
    /// produce can be checked against the catalog without a hand-kept list.
    public static var everyVariant: [GameEvent] {
        let hero: HeroID = "hero", boss: BossID = "boss", player: PlayerID = "player"
        return Kind.allCases.flatMap { kind -> [GameEvent] in
            switch kind {
            case .damageDealt: [.damageDealt(hero: hero, boss: boss, amount: 1, blocked: 0)]
            case .criticalHit: [.criticalHit(hero: hero, boss: boss, amount: 1, blocked: 0)]
            case .areaAttack: [.areaAttack(boss: boss)]
            case .damageTaken: [.damageTaken(hero: hero, boss: boss, amount: 1)]
            case .smallHeal: [.smallHeal(healer: hero, hero: hero, amount: 1)]
            case .lootFound: LootRarity.allCases.map { .lootFound(hero: hero, rarity: $0) }
            case .heroKnockedDown: [.heroKnockedDown(hero: hero, boss: boss)]
            case .potionUsed: [.potionUsed(player: player, hero: hero, amount: 1)]
            case .heroRevived: [.heroRevived(hero: hero)]
            case .potionRejected: PotionRejection.allCases.map { .potionRejected(player: player, hero: hero, reason: $0) }
            case .bossEnraged: [.bossEnraged(boss: boss)]
            case .bossHealed: [.bossHealed(boss: boss, amount: 1)]
            case .bossShielded: [.bossShielded(boss: boss, amount: 1)]
            case .bossDefeated: [.bossDefeated(boss: boss, hero: hero, rank: .main)]
            case .nextBossAppears: [.nextBossAppears(boss: boss)]
            case .victory: [.victory(boss: boss)]
            case .partyWiped: [.partyWiped(boss: boss)]
            case .timeLimitReached: [.timeLimitReached(boss: boss)]
            case .adventureEndedByGameMaster: [.adventureEndedByGameMaster(boss: boss)]
            }
        }
    }
}
