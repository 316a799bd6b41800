import Vocabulary

public struct PartyMember: Hashable, Codable, Sendable {
    public var player: PlayerID
    public var hero: HeroID

    public init(player: PlayerID, hero: HeroID) {
        self.player = player
        self.hero = hero
    }
}

/// Everything that, with the content and the commands, determines an adventure.
public struct AdventureSetup: Hashable, Codable, Sendable {
    public static let partySizes = 1...6
    /// A Live Activity stays active for at most 8 hours; an adventure never outlives it.
    public static let longestTimeLimit = 8 * 60 * 60
    public static let tickIntervals = 1...3600

    /// What an adventure's resolved rules depend on: its route and its heroes in
    /// their order, not its players or seed. Adventures with the same key share
    /// their rules (`Adventure(setup:content:sharingWith:)`).
    public struct RulesKey: Hashable, Sendable {
        public var route: RouteID
        public var heroes: [HeroID]
    }

    public var rulesKey: RulesKey { RulesKey(route: route, heroes: party.map(\.hero)) }

    public var route: RouteID
    public var party: [PartyMember]
    /// Seconds of adventure time between two ticks.
    public var tickInterval: Int
    /// Seconds after which the adventure ends if it is still running.
    public var timeLimit: Int
    public var seed: UInt64

    public init(route: RouteID, party: [PartyMember], tickInterval: Int, timeLimit: Int, seed: UInt64) {
        self.route = route
        self.party = party
        self.tickInterval = tickInterval
        self.timeLimit = timeLimit
        self.seed = seed
    }

    /// The last tick the adventure can reach before its time limit ends it.
    public var lastTick: Int { timeLimit / tickInterval }

    /// The checks that need no content: the party's size and the adventure's times.
    /// `Adventure.init` makes them, and the store again before it keeps a setup.
    public func checkShape() throws(AdventureSetupError) {
        guard Self.partySizes.contains(party.count) else { throw .partySize(party.count) }
        try Self.checkTimes(tickInterval: tickInterval, timeLimit: timeLimit)
    }

    /// The tick interval within `tickIntervals`, and a time limit of at least one
    /// tick and at most `longestTimeLimit`: what a request to start one is checked for.
    public static func checkTimes(tickInterval: Int, timeLimit: Int) throws(AdventureSetupError) {
        guard tickIntervals.contains(tickInterval) else { throw .tickInterval(tickInterval) }
        guard timeLimit >= tickInterval, timeLimit <= longestTimeLimit else {
            throw .timeLimit(timeLimit, tickInterval: tickInterval)
        }
    }
}

public enum AdventureSetupError: Error, Hashable, CustomStringConvertible {
    case partySize(Int)
    case duplicateHero(HeroID)
    case unknownHero(HeroID)
    case unknownRoute(RouteID)
    case unknownBoss(BossID, route: RouteID)
    case emptyRoute(RouteID)
    case tickInterval(Int)
    case timeLimit(Int, tickInterval: Int)

    public var description: String {
        switch self {
        case .partySize(let count):
            "a party has \(AdventureSetup.partySizes.lowerBound) to \(AdventureSetup.partySizes.upperBound) heroes, not \(count)"
        case .duplicateHero(let hero):
            "hero '\(hero)' is in the party twice"
        case .unknownHero(let hero):
            "unknown hero '\(hero)'"
        case .unknownRoute(let route):
            "unknown route '\(route)'"
        case .unknownBoss(let boss, let route):
            "route '\(route)' names unknown boss '\(boss)'"
        case .emptyRoute(let route):
            "route '\(route)' has no bosses"
        case .tickInterval(let seconds):
            "tick interval must be \(AdventureSetup.tickIntervals.lowerBound)…\(AdventureSetup.tickIntervals.upperBound) seconds, not \(seconds)"
        case .timeLimit(let seconds, let tickInterval):
            "time limit must be at least one tick (\(tickInterval) s) and at most 8 hours (\(AdventureSetup.longestTimeLimit) s), not \(seconds) s"
        }
    }
}
