import Vocabulary

public enum AdventureStatus: String, Hashable, Codable, Sendable {
    case running, victory, defeat, timeLimitReached, endedByGameMaster
}

public struct HeroState: Hashable, Codable, Sendable {
    public var hero: HeroID
    public var player: PlayerID
    public var health: Int
    public var maxHealth: Int

    /// A knocked-down hero has no health left and does not act until a potion revives it.
    public var isKnockedDown: Bool { health == 0 }
}

public struct BossState: Hashable, Codable, Sendable {
    public var boss: BossID
    public var rank: BossRank
    public var health: Int
    public var maxHealth: Int
    public var shield: Int
    public var enraged: Bool
    public var usedHealPhase: Bool
    public var usedShieldPhase: Bool

    init(_ definition: BossDefinition) {
        boss = definition.id
        rank = definition.rank
        health = definition.maxHealth
        maxHealth = definition.maxHealth
        shield = 0
        enraged = false
        usedHealPhase = false
        usedShieldPhase = false
    }
}

/// The whole mutable state of a running adventure; small and `Codable`, so the
/// server can store it after every tick and resume from it.
public struct AdventureState: Hashable, Codable, Sendable {
    /// The last tick played; 0 before the first.
    public var tick: Int
    public var status: AdventureStatus
    public var heroes: [HeroState]
    /// Position of the current boss in the route.
    public var bossIndex: Int
    public var boss: BossState
    public var potions: Int
    public var random: SeededRandom

    public var isRunning: Bool { status == .running }

    public func hero(_ id: HeroID) -> HeroState? { heroes.first { $0.hero == id } }
}
