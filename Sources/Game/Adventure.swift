/// An adventure's fixed rules of play: its setup resolved against the content.
/// `tick` is a pure function of this, the state and the commands.
public struct Adventure: Sendable {
    public let setup: AdventureSetup
    public let heroes: [HeroDefinition]
    public let bosses: [BossDefinition]
    public let rules: GameRules
    /// Who acts in which order while each boss of the route is up.
    private let turnOrders: [[Actor]]
    private let fighters: [Fighter]

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
        self.heroes = heroes
        self.bosses = bosses
        self.rules = content.rules
        fighters = heroes.map { hero in
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
        turnOrders = bosses.map { boss in
            let heroSlots = heroes.indices.map { (speed: heroes[$0].stats.speed, actor: Actor.hero($0)) }
            return (heroSlots + [(speed: boss.speed, actor: .boss)])
                .enumerated()
                .sorted { ($0.element.speed, -$0.offset) > ($1.element.speed, -$1.offset) }
                .map(\.element.actor)
        }
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

    func fighter(_ slot: Int) -> Fighter { fighters[slot] }
    func bossDefinition(_ index: Int) -> BossDefinition { bosses[index] }
}
