/// The data a game designer edits (Content/heroes.json, bosses.json, rules.json),
/// as the game reads it. Loading and checking the files is the Catalog module's job.

public enum HeroType: String, Codable, Sendable, CaseIterable {
    /// Draws the boss's single-target strikes (see `GameRules.tankThreat`).
    case tank
    /// Heals the most hurt ally instead of attacking when someone is low.
    case healer
    case fighter
    /// Attacks ignore the boss's defense.
    case mage
}

public struct HeroStats: Hashable, Codable, Sendable {
    public var maxHealth: Int
    public var attack: Int
    public var defense: Int
    public var speed: Int
    /// Probability of a critical hit, 0...1.
    public var critChance: Double
    /// Health restored by one heal (healers only).
    public var healing: Int

    public init(maxHealth: Int, attack: Int, defense: Int, speed: Int, critChance: Double, healing: Int) {
        self.maxHealth = maxHealth
        self.attack = attack
        self.defense = defense
        self.speed = speed
        self.critChance = critChance
        self.healing = healing
    }
}

public struct HeroDefinition: Hashable, Codable, Sendable {
    public var id: HeroID
    public var name: String
    public var avatar: String
    public var heroType: HeroType
    public var level: Int
    public var exp: Int
    public var bio: String
    public var stats: HeroStats
}

public enum BossRank: String, Codable, Sendable {
    /// A main boss: defeating one is news the whole party should hear about now.
    case main
    case minion
}

public enum BossAbilityKind: String, Codable, Sendable {
    /// Hits one hero.
    case strike
    /// Hits every hero still standing.
    case sweep
}

public struct BossAbility: Hashable, Codable, Sendable {
    public var kind: BossAbilityKind
    /// Relative chance of choosing this ability.
    public var weight: Int
    /// Damage as a percentage of the boss's attack.
    public var powerPercent: Int
}

public struct Enrage: Hashable, Codable, Sendable {
    public var belowHealthPercent: Int
    public var attackPercent: Int

    public init(belowHealthPercent: Int, attackPercent: Int) {
        self.belowHealthPercent = belowHealthPercent
        self.attackPercent = attackPercent
    }
}

public struct HealPhase: Hashable, Codable, Sendable {
    public var belowHealthPercent: Int
    /// Health regained, as a percentage of the boss's max health. Happens once.
    public var healPercent: Int

    public init(belowHealthPercent: Int, healPercent: Int) {
        self.belowHealthPercent = belowHealthPercent
        self.healPercent = healPercent
    }
}

public struct ShieldPhase: Hashable, Codable, Sendable {
    public var belowHealthPercent: Int
    /// A shield that absorbs this percentage of max health in damage. Happens once.
    public var shieldPercent: Int

    public init(belowHealthPercent: Int, shieldPercent: Int) {
        self.belowHealthPercent = belowHealthPercent
        self.shieldPercent = shieldPercent
    }
}

public struct BossDefinition: Hashable, Codable, Sendable {
    public var id: BossID
    public var name: String
    public var avatar: String
    public var rank: BossRank
    public var maxHealth: Int
    public var attack: Int
    public var defense: Int
    public var speed: Int
    public var abilities: [BossAbility]
    public var enrage: Enrage?
    public var healPhase: HealPhase?
    public var shieldPhase: ShieldPhase?
}

public struct Route: Hashable, Codable, Sendable {
    public var id: RouteID
    public var name: String
    /// Fought in this order; the adventure is won when the last one falls.
    public var bosses: [BossID]

    public init(id: RouteID, name: String, bosses: [BossID]) {
        self.id = id
        self.name = name
        self.bosses = bosses
    }
}

public struct LootChances: Hashable, Codable, Sendable {
    public var common: Int
    public var rare: Int
    public var legendary: Int
}

/// Numbers that shape every adventure. They live in Content/rules.json so that a
/// change to them changes the content version and is caught by replay.
public struct GameRules: Hashable, Codable, Sendable {
    public var startingPotions: Int
    /// A potion restores this percentage of the hero's max health (and revives).
    public var potionHealPercent: Int
    /// Each hit or heal varies by up to ± this percentage.
    public var variancePercent: Int
    public var criticalDamagePercent: Int
    /// Healers heal an ally whose health is below this percentage.
    public var healBelowPercent: Int
    /// Chance per hero attack, in thousandths, of finding loot of each rarity.
    public var lootPerMille: LootChances
    /// How much more likely a tank is to be the target of a strike than others.
    public var tankThreat: Int
}

/// Everything the game reads from Content/, with lookups by id.
public struct GameContent: Sendable {
    public let heroes: [HeroDefinition]
    public let bosses: [BossDefinition]
    public let routes: [Route]
    public let rules: GameRules
    private let heroByID: [HeroID: HeroDefinition]
    private let bossByID: [BossID: BossDefinition]
    private let routeByID: [RouteID: Route]

    /// Later definitions with a duplicate id are ignored here; the content check reports them.
    public init(heroes: [HeroDefinition], bosses: [BossDefinition], routes: [Route], rules: GameRules) {
        self.heroes = heroes
        self.bosses = bosses
        self.routes = routes
        self.rules = rules
        heroByID = Dictionary(heroes.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        bossByID = Dictionary(bosses.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        routeByID = Dictionary(routes.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    public func hero(_ id: HeroID) -> HeroDefinition? { heroByID[id] }
    public func boss(_ id: BossID) -> BossDefinition? { bossByID[id] }
    public func route(_ id: RouteID) -> Route? { routeByID[id] }
}
