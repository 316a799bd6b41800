import Game
import Vocabulary

/// How an adventure stood after one tick, as the timeline chart draws it.
public struct TimelineSample: Hashable, Sendable, Encodable {
    public var tick: Int
    /// Percent of max health, one per hero in party order.
    public var heroHealth: [Int]
    public var bossHealth: Int
    /// The boss's position in the route.
    public var bossIndex: Int

    public init(_ state: AdventureState) {
        tick = state.tick
        heroHealth = state.heroes.map { Self.percent($0.health, of: $0.maxHealth) }
        bossHealth = Self.percent(state.boss.health, of: state.boss.maxHealth)
        bossIndex = state.bossIndex
    }

    static func percent(_ value: Int, of maximum: Int) -> Int {
        maximum > 0 ? Int((Double(value) * 100 / Double(maximum)).rounded()) : 0
    }
}

/// An adventure's timeline as its ticks are stored, for a page that follows it:
/// the game played forward from the start with the commands the store says were
/// applied, one sample per tick. The game is deterministic, so the samples are
/// the stored adventure's; `matches` checks that against the state the store
/// keeps, which differs only when the content changed since the adventure began.
public struct TimelineFollower: Sendable {
    public let adventure: Adventure
    public private(set) var state: AdventureState

    public init(setup: AdventureSetup, content: GameContent) throws(AdventureSetupError) {
        adventure = try Adventure(setup: setup, content: content)
        state = adventure.start()
    }

    /// The tick played last (0 before the first).
    public var tick: Int { state.tick }

    /// How it stood before the first tick.
    public var startSample: TimelineSample { TimelineSample(adventure.start()) }

    /// Plays on to `tick` (no further than the adventure's end), applying each of
    /// `commands` (the adventure's applied commands, any ticks) at its tick;
    /// returns a sample of each tick played.
    public mutating func advance(to tick: Int, commands: [ScheduledCommand]) -> [TimelineSample] {
        let byTick = Dictionary(grouping: commands.filter { $0.tick > state.tick && $0.tick <= tick }, by: \.tick)
        var samples: [TimelineSample] = []
        var events: [GameEvent] = []
        while state.isRunning, state.tick < tick {
            events.removeAll(keepingCapacity: true)
            adventure.tick(&state, commands: byTick[state.tick + 1]?.map(\.command) ?? [], events: &events)
            samples.append(TimelineSample(state))
        }
        return samples
    }

    /// Whether the game played here stands where the stored adventure does.
    public func matches(_ stored: AdventureState) -> Bool { stored == state }
}
