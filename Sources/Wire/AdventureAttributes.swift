import Foundation

// The types below are shared verbatim with the iOS app, whose widget decodes
// them with a plain `JSONDecoder()`. That is why they use synthesized Codable
// and no custom coding strategies: whatever this server encodes, a default
// decoder on the phone must read back unchanged.
//
// Dates: a `Date` in these types is encoded the Swift default way, as seconds
// since 2001-01-01 (the reference date). The `timestamp`, `stale-date` and
// `dismissal-date` of `aps` are a different clock: whole seconds since 1970,
// modelled by `UnixTimestamp` so the two can't be mixed up by accident.

/// The static part of an adventure's Live Activity: fixed when the activity
/// starts and never changed by a push. Mirrors Apple's Emoji Rangers sample
/// (`AdventureAttributes { hero }`), extended with the whole party and route.
///
/// Where ActivityKit is, it is the app's `ActivityAttributes` (AdventureAttributes+ActivityKit);
/// push-to-start names this type in `attributes-type`, so renaming it breaks push-to-start on devices.
public struct AdventureAttributes: Codable, Hashable, Sendable {
    public var adventureID: String
    /// The hero whose Live Activity this is; `ContentState.currentHealthLevel` is this
    /// hero's. Empty for a follower's activity (a player outside the party), whose
    /// `currentHealthLevel` is the whole party's.
    public var heroID: String
    public var routeName: String
    public var party: [HeroSummary]
    /// The route's bosses in the order they are fought; `BossStatus.position` indexes this.
    public var bosses: [BossSummary]
    /// The adventure's time-limit deadline, for a countdown in the widget.
    /// Encoded as seconds since 2001-01-01, not unix seconds.
    public var endsAt: Date

    public init(
        adventureID: String, heroID: String, routeName: String,
        party: [HeroSummary], bosses: [BossSummary], endsAt: Date
    ) {
        self.adventureID = adventureID
        self.heroID = heroID
        self.routeName = routeName
        self.party = party
        self.bosses = bosses
        self.endsAt = endsAt
    }

    /// The dynamic part, replaced by every `update` and `end` push.
    public struct ContentState: Codable, Hashable, Sendable {
        /// Health of the activity's own hero, 0…1 (Apple's sample field, for a single-hero view).
        public var currentHealthLevel: Double
        /// Plain text for views that can't localize `latestEvent`; the only field
        /// the server shortens when a payload would exceed the size limit.
        public var eventDescription: String
        /// Every hero of the party, in party order.
        public var heroes: [HeroStatus]
        /// The boss currently being fought.
        public var boss: BossStatus
        /// What just happened, as a string-catalog key the widget localizes.
        public var latestEvent: EventText
        /// Potions the party has left.
        public var potions: Int

        public init(
            currentHealthLevel: Double, eventDescription: String, heroes: [HeroStatus],
            boss: BossStatus, latestEvent: EventText, potions: Int
        ) {
            self.currentHealthLevel = currentHealthLevel
            self.eventDescription = eventDescription
            self.heroes = heroes
            self.boss = boss
            self.latestEvent = latestEvent
            self.potions = potions
        }
    }
}

/// A party member as the widget draws it.
public struct HeroSummary: Codable, Hashable, Sendable {
    public var id: String
    public var name: String
    /// An emoji, e.g. "🐼".
    public var avatar: String

    public init(id: String, name: String, avatar: String) {
        self.id = id
        self.name = name
        self.avatar = avatar
    }
}

/// A boss of the route as the widget draws it.
public struct BossSummary: Codable, Hashable, Sendable {
    public var id: String
    public var name: String
    /// An emoji, e.g. "🐉".
    public var avatar: String

    public init(id: String, name: String, avatar: String) {
        self.id = id
        self.name = name
        self.avatar = avatar
    }
}

/// One hero's condition at the moment of a push.
public struct HeroStatus: Codable, Hashable, Sendable {
    public var id: String
    /// 0…1 of the hero's maximum health.
    public var healthLevel: Double
    public var isKnockedDown: Bool

    public init(id: String, healthLevel: Double, isKnockedDown: Bool) {
        self.id = id
        self.healthLevel = healthLevel
        self.isKnockedDown = isKnockedDown
    }
}

/// The current boss's condition at the moment of a push.
public struct BossStatus: Codable, Hashable, Sendable {
    public var id: String
    /// 0…1 of the boss's maximum health.
    public var healthLevel: Double
    public var isEnraged: Bool
    /// 0-based index of this boss in `AdventureAttributes.bosses`.
    public var position: Int

    public init(id: String, healthLevel: Double, isEnraged: Bool, position: Int) {
        self.id = id
        self.healthLevel = healthLevel
        self.isEnraged = isEnraged
        self.position = position
    }
}

/// A text the widget shows in the phone's language: a key of the app's string
/// catalog and the values for its `%@` placeholders, always strings.
public struct EventText: Codable, Hashable, Sendable {
    public var key: String
    public var args: [String]

    public init(key: String, args: [String] = []) {
        self.key = key
        self.args = args
    }
}
