import Vocabulary

/// Events are stored and printed as flat JSON objects: `{"type": "heroKnockedDown",
/// "hero": "egghead", "boss": "goblin-chief"}`, which reads well in a log, diffs well
/// in golden files, and is what the event-log columns of the store hold.
extension GameEvent: Codable {
    private enum Field: String, CodingKey {
        case type, hero, boss, amount, blocked, healer, rarity, player, reason, rank
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Field.self)
        try c.encode(kind, forKey: .type)
        switch self {
        case .damageDealt(let hero, let boss, let amount, let blocked),
             .criticalHit(let hero, let boss, let amount, let blocked):
            try c.encode(hero, forKey: .hero)
            try c.encode(boss, forKey: .boss)
            try c.encode(amount, forKey: .amount)
            try c.encode(blocked, forKey: .blocked)
        case .damageTaken(let hero, let boss, let amount):
            try c.encode(hero, forKey: .hero)
            try c.encode(boss, forKey: .boss)
            try c.encode(amount, forKey: .amount)
        case .smallHeal(let healer, let hero, let amount):
            try c.encode(healer, forKey: .healer)
            try c.encode(hero, forKey: .hero)
            try c.encode(amount, forKey: .amount)
        case .lootFound(let hero, let rarity):
            try c.encode(hero, forKey: .hero)
            try c.encode(rarity, forKey: .rarity)
        case .heroKnockedDown(let hero, let boss):
            try c.encode(hero, forKey: .hero)
            try c.encode(boss, forKey: .boss)
        case .potionUsed(let player, let hero, let amount):
            try c.encode(player, forKey: .player)
            try c.encode(hero, forKey: .hero)
            try c.encode(amount, forKey: .amount)
        case .heroRevived(let hero):
            try c.encode(hero, forKey: .hero)
        case .potionRejected(let player, let hero, let reason):
            try c.encode(player, forKey: .player)
            try c.encode(hero, forKey: .hero)
            try c.encode(reason, forKey: .reason)
        case .bossHealed(let boss, let amount), .bossShielded(let boss, let amount):
            try c.encode(boss, forKey: .boss)
            try c.encode(amount, forKey: .amount)
        case .bossDefeated(let boss, let hero, let rank):
            try c.encode(boss, forKey: .boss)
            try c.encode(hero, forKey: .hero)
            try c.encode(rank, forKey: .rank)
        case .areaAttack(let boss), .bossEnraged(let boss), .nextBossAppears(let boss),
             .victory(let boss), .partyWiped(let boss), .timeLimitReached(let boss),
             .adventureEndedByGameMaster(let boss):
            try c.encode(boss, forKey: .boss)
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Field.self)
        func hero() throws -> HeroID { try c.decode(HeroID.self, forKey: .hero) }
        func boss() throws -> BossID { try c.decode(BossID.self, forKey: .boss) }
        func amount() throws -> Int { try c.decode(Int.self, forKey: .amount) }
        switch try c.decode(Kind.self, forKey: .type) {
        case .damageDealt:
            self = .damageDealt(hero: try hero(), boss: try boss(), amount: try amount(),
                                blocked: try c.decode(Int.self, forKey: .blocked))
        case .criticalHit:
            self = .criticalHit(hero: try hero(), boss: try boss(), amount: try amount(),
                                blocked: try c.decode(Int.self, forKey: .blocked))
        case .areaAttack: self = .areaAttack(boss: try boss())
        case .damageTaken: self = .damageTaken(hero: try hero(), boss: try boss(), amount: try amount())
        case .smallHeal:
            self = .smallHeal(healer: try c.decode(HeroID.self, forKey: .healer), hero: try hero(),
                              amount: try amount())
        case .lootFound:
            self = .lootFound(hero: try hero(), rarity: try c.decode(LootRarity.self, forKey: .rarity))
        case .heroKnockedDown: self = .heroKnockedDown(hero: try hero(), boss: try boss())
        case .potionUsed:
            self = .potionUsed(player: try c.decode(PlayerID.self, forKey: .player), hero: try hero(),
                               amount: try amount())
        case .heroRevived: self = .heroRevived(hero: try hero())
        case .potionRejected:
            self = .potionRejected(player: try c.decode(PlayerID.self, forKey: .player), hero: try hero(),
                                   reason: try c.decode(PotionRejection.self, forKey: .reason))
        case .bossEnraged: self = .bossEnraged(boss: try boss())
        case .bossHealed: self = .bossHealed(boss: try boss(), amount: try amount())
        case .bossShielded: self = .bossShielded(boss: try boss(), amount: try amount())
        case .bossDefeated:
            self = .bossDefeated(boss: try boss(), hero: try hero(),
                                 rank: try c.decode(BossRank.self, forKey: .rank))
        case .nextBossAppears: self = .nextBossAppears(boss: try boss())
        case .victory: self = .victory(boss: try boss())
        case .partyWiped: self = .partyWiped(boss: try boss())
        case .timeLimitReached: self = .timeLimitReached(boss: try boss())
        case .adventureEndedByGameMaster: self = .adventureEndedByGameMaster(boss: try boss())
        }
    }
}
