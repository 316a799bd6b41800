/// An adventure's fixed rules of play: its setup resolved against the content.
/// `tick` is a pure function of this, the state and the commands.
public struct Adventure: Sendable {
    public let setup: AdventureSetup
    private let resolved: Resolved

    public var heroes: [HeroDefinition] { resolved.heroes }
    public var bosses: [BossDefinition] { resolved.bosses }
    public var rules: GameRules { resolved.rules }
    /// Who acts in which order while each boss of the route is up.
    private var turnOrders: [[Actor]] { resolved.turnOrders }

    /// What the setup resolves to that depends only on its route and its heroes,
    /// not on its players or seed: immutable, so adventures of the same route and
    /// heroes can share one (a node holding thousands keeps a few of these).
    private final class Resolved: Sendable {
        let heroes: [HeroDefinition]
        let bosses: [BossDefinition]
        let rules: GameRules
        let turnOrders: [[Actor]]
        let fighters: [Fighter]

        init(heroes: [HeroDefinition], bosses: [BossDefinition], rules: GameRules, turnOrders: [[Actor]], fighters: [Fighter]) {
            self.heroes = heroes
            self.bosses = bosses
            self.rules = rules
            self.turnOrders = turnOrders
            self.fighters = fighters
        }
    }

    enum Actor: Hashable, Sendable {
        case hero(Int)
        case boss
    }

    /// The per-hero numbers the tick needs, worked out once.
    struct Fighter: Sendable {
        var attack: Int
        var defense: Int
        var critPerMille: Int
        var healing: Int
        var type: HeroType
        var threat: Int
    }

    public init(setup: AdventureSetup, content: GameContent) throws(AdventureSetupError) {
        try setup.checkShape()
        var seen = Set<HeroID>()
        var heroes: [HeroDefinition] = []
        for member in setup.party {
            guard seen.insert(member.hero).inserted else { throw .duplicateHero(member.hero) }
            guard let hero = content.hero(member.hero) else { throw .unknownHero(member.hero) }
            heroes.append(hero)
        }
        guard let route = content.route(setup.route) else { throw .unknownRoute(setup.route) }
        guard !route.bosses.isEmpty else { throw .emptyRoute(route.id) }
        var bosses: [BossDefinition] = []
        for id in route.bosses {
            guard let boss = content.boss(id) else { throw .unknownBoss(id, route: route.id) }
            bosses.append(boss)
        }

        self.setup = setup
        let fighters = heroes.map { hero in
            Fighter(
                attack: hero.stats.attack,
                defense: hero.stats.defense,
                critPerMille: Int((hero.stats.critChance * 1000).rounded()),
                healing: hero.stats.healing,
                type: hero.heroType,
                threat: hero.heroType == .tank ? content.rules.tankThreat : 1
            )
        }
        // Faster first; on equal speed heroes go before the boss, in party order.
        let turnOrders = bosses.map { boss in
            let heroSlots = heroes.indices.map { (speed: heroes[$0].stats.speed, actor: Actor.hero($0)) }
            return (heroSlots + [(speed: boss.speed, actor: .boss)])
                .enumerated()
                .sorted { ($0.element.speed, -$0.offset) > ($1.element.speed, -$1.offset) }
                .map(\.element.actor)
        }
        resolved = Resolved(heroes: heroes, bosses: bosses, rules: content.rules, turnOrders: turnOrders, fighters: fighters)
    }

    /// An adventure with `setup` that shares `other`'s resolved rules when both
    /// have the same route and the same heroes in the same order (resolved from
    /// the same content); otherwise it is resolved anew. Plays exactly as
    /// `init(setup:content:)` would.
    public init(setup: AdventureSetup, content: GameContent, sharingWith other: Adventure?) throws(AdventureSetupError) {
        guard let other, other.setup.rulesKey == setup.rulesKey else {
            try self.init(setup: setup, content: content)
            return
        }
        try setup.checkShape()
        self.init(setup: setup, resolved: other.resolved)
    }

    /// Whether this adventure holds the same resolved rules as `other` (not a copy).
    public func sharesRules(with other: Adventure) -> Bool { resolved === other.resolved }

    private init(setup: AdventureSetup, resolved: Resolved) {
        self.setup = setup
        self.resolved = resolved
    }

    public func start() -> AdventureState {
        AdventureState(
            tick: 0,
            status: .running,
            heroes: zip(setup.party, heroes).map { member, hero in
                HeroState(hero: hero.id, player: member.player,
                          health: hero.stats.maxHealth, maxHealth: hero.stats.maxHealth)
            },
            bossIndex: 0,
            boss: BossState(bosses[0]),
            potions: rules.startingPotions,
            random: SeededRandom(seed: setup.seed)
        )
    }

    /// Plays one tick: applies `commands` in order, then every hero still standing
    /// and the boss act by speed. Appends what happened to `events`. Does nothing
    /// once the adventure has ended.
    public func tick(_ state: inout AdventureState, commands: [Command] = [], events: inout [GameEvent]) {
        guard state.isRunning else { return }
        state.tick += 1
        play(&state, commands: commands, turnOrder: turnOrders[state.bossIndex], events: &events)
    }

    public func tick(_ state: AdventureState, commands: [Command] = []) -> (state: AdventureState, events: [GameEvent]) {
        var next = state
        var events: [GameEvent] = []
        tick(&next, commands: commands, events: &events)
        return (next, events)
    }

    func fighter(_ slot: Int) -> Fighter { resolved.fighters[slot] }
    func bossDefinition(_ index: Int) -> BossDefinition { resolved.bosses[index] }
}
