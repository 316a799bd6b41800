import Game
import Vocabulary

/// Who, relative to an event, a Live Activity belongs to.
public enum Audience: String, Sendable, CaseIterable {
    /// The activity of a hero the event names.
    case owner
    /// Everyone else's activity.
    case others
}

/// Which events a rule covers: a kind, narrowed where the kind has variants that
/// deserve different treatment.
public enum EventPattern: Hashable, Sendable, CustomStringConvertible {
    case kind(GameEvent.Kind)
    case bossDefeated(BossRank)
    case loot(LootRarity)

    func matches(_ event: GameEvent) -> Bool {
        switch (self, event) {
        case (.bossDefeated(let rank), .bossDefeated(_, _, let actual)): rank == actual
        case (.loot(let rarity), .lootFound(_, let actual)): rarity == actual
        case (.kind(let kind), _): kind == event.kind
        default: false
        }
    }

    public var description: String {
        switch self {
        case .kind(let kind): kind.rawValue
        case .bossDefeated(let rank): "bossDefeated (\(rank.rawValue))"
        case .loot(let rarity): "lootFound (\(rarity.rawValue))"
        }
    }
}

/// The alerts the policy can send: each a title and body from the string
/// catalog and a sound from Content/Sounds.
public enum AlertKind: String, Sendable, CaseIterable {
    case heroKnockedDown, bossDefeated, victory, defeat, timeLimitReached, adventureStarted
    /// A follower's Live Activity started by push-to-start.
    case following

    public var titleKey: String { "alert.\(rawValue).title" }
    public var bodyKey: String { "alert.\(rawValue).body" }

    /// The party-wide alerts, which followers get too, with a body that says "the
    /// party" rather than "your party"; nil for the others.
    public var followerBodyKey: String? {
        switch self {
        case .bossDefeated, .victory, .defeat, .timeLimitReached: "alert.\(rawValue).followerBody"
        case .heroKnockedDown, .adventureStarted, .following: nil
        }
    }

    public var sound: String {
        switch self {
        case .heroKnockedDown: "HeroDown.caf"
        case .bossDefeated: "BossDefeated.caf"
        case .victory: "Victory.caf"
        case .defeat, .timeLimitReached: "Defeat.caf"
        case .adventureStarted, .following: "AdventureStart.caf"
        }
    }

    /// How many `%@` arguments the title and body take.
    public var argumentCounts: (title: Int, body: Int) {
        switch self {
        case .heroKnockedDown: (1, 1)
        case .bossDefeated: (1, 1)
        case .victory, .defeat, .timeLimitReached: (0, 1)
        case .adventureStarted, .following: (0, 2)
        }
    }
}

public struct PushRule: Sendable {
    public var pattern: EventPattern
    /// `nil`: the rule applies to every activity.
    public var audience: Audience?
    public var priority: Priority
    public var alert: AlertKind?
    /// Why, in words a game designer and the push log can show.
    public var why: String

    /// `hero` is the activity's own hero; nil for a follower's, who owns none and
    /// so is among the "others" of every event.
    public func applies(to event: GameEvent, hero: HeroID?) -> Bool {
        guard pattern.matches(event) else { return false }
        switch audience {
        case nil: return true
        case .owner: return hero.map(event.heroes.contains) ?? false
        case .others: return !(hero.map(event.heroes.contains) ?? false)
        }
    }
}

extension PushRule {
    /// What each event is worth to each Live Activity, most important first: of
    /// a tick's events, the first rule that applies decides the push's priority
    /// and alert, and its (newest) event becomes the activity's latest event. Every event
    /// kind must have a rule (tested); docs/push-policy.md prints this table.
    public static let table: [PushRule] = [
        PushRule(pattern: .kind(.victory), audience: nil, priority: .high, alert: .victory,
                 why: "the party won: everyone celebrates"),
        PushRule(pattern: .kind(.partyWiped), audience: nil, priority: .high, alert: .defeat,
                 why: "the party was defeated: everyone hears it now"),
        PushRule(pattern: .kind(.timeLimitReached), audience: nil, priority: .high, alert: .timeLimitReached,
                 why: "time ran out: the adventure is over"),
        PushRule(pattern: .kind(.adventureEndedByGameMaster), audience: nil, priority: .high, alert: nil,
                 why: "the game master ended the adventure: its activity ends now"),
        PushRule(pattern: .kind(.heroKnockedDown), audience: .owner, priority: .high, alert: .heroKnockedDown,
                 why: "your hero is down: use a potion"),
        PushRule(pattern: .bossDefeated(.main), audience: nil, priority: .high, alert: .bossDefeated,
                 why: "a main boss fell: the next one appears"),
        PushRule(pattern: .kind(.heroKnockedDown), audience: .others, priority: .low, alert: nil,
                 why: "a teammate is down"),
        PushRule(pattern: .kind(.heroRevived), audience: nil, priority: .low, alert: nil,
                 why: "a hero is back on their feet"),
        PushRule(pattern: .kind(.potionUsed), audience: nil, priority: .low, alert: nil,
                 why: "a potion was used"),
        PushRule(pattern: .kind(.potionRejected), audience: nil, priority: .low, alert: nil,
                 why: "a potion could not be used"),
        PushRule(pattern: .bossDefeated(.minion), audience: nil, priority: .low, alert: nil,
                 why: "a minion fell"),
        PushRule(pattern: .kind(.nextBossAppears), audience: nil, priority: .low, alert: nil,
                 why: "a new boss appears"),
        PushRule(pattern: .kind(.bossEnraged), audience: nil, priority: .low, alert: nil,
                 why: "the boss is enraged"),
        PushRule(pattern: .kind(.bossShielded), audience: nil, priority: .low, alert: nil,
                 why: "the boss raised a shield"),
        PushRule(pattern: .kind(.bossHealed), audience: nil, priority: .low, alert: nil,
                 why: "the boss healed"),
        PushRule(pattern: .loot(.legendary), audience: nil, priority: .low, alert: nil,
                 why: "legendary loot"),
        PushRule(pattern: .loot(.rare), audience: nil, priority: .low, alert: nil,
                 why: "rare loot"),
        PushRule(pattern: .kind(.criticalHit), audience: nil, priority: .low, alert: nil,
                 why: "a critical hit"),
        PushRule(pattern: .kind(.areaAttack), audience: nil, priority: .low, alert: nil,
                 why: "the boss hit the whole party"),
        PushRule(pattern: .kind(.damageTaken), audience: .owner, priority: .low, alert: nil,
                 why: "your hero took damage"),
        PushRule(pattern: .kind(.smallHeal), audience: nil, priority: .low, alert: nil,
                 why: "a small heal"),
        PushRule(pattern: .loot(.common), audience: nil, priority: .low, alert: nil,
                 why: "common loot"),
        PushRule(pattern: .kind(.damageTaken), audience: .others, priority: .low, alert: nil,
                 why: "a teammate took damage"),
        PushRule(pattern: .kind(.damageDealt), audience: nil, priority: .low, alert: nil,
                 why: "routine damage"),
    ]

    /// The most important rule that applies to any of `events` for `hero`'s
    /// activity, with its newest event that it applies to.
    ///
    /// Each event is held only against the rules of its kind, and the best of
    /// those wins: the first rule of the table that applies to any event is the
    /// best rule of the events it applies to. Trying every rule of the table on
    /// every event cost some 18,000 instructions a recipient.
    static func mostImportant(of events: [GameEvent], for hero: HeroID?) -> (rule: PushRule, event: GameEvent)? {
        var best: (place: Int, event: GameEvent)?
        for event in events {
            guard let place = placesByKind[event.kind]?.first(where: { table[$0].applies(to: event, hero: hero) }) else {
                continue
            }
            // A later event of the same rule is newer: it wins the tie.
            if place <= best?.place ?? .max { best = (place, event) }
        }
        return best.map { (table[$0.place], $0.event) }
    }

    /// The places in `table` of the rules that can apply to each kind of event, in order.
    private static let placesByKind: [GameEvent.Kind: [Int]] = Dictionary(grouping: table.indices) { table[$0].pattern.kind }
}

extension EventPattern {
    /// The kind of event the pattern covers.
    var kind: GameEvent.Kind {
        switch self {
        case .kind(let kind): kind
        case .bossDefeated: .bossDefeated
        case .loot: .lootFound
        }
    }
}

extension PushRule {
    /// The table as docs/push-policy.md shows it; a test keeps the two in step.
    public static var markdownTable: String {
        var lines = [
            "| event | whose Live Activity | priority | alert | sound | why |",
            "|---|---|---|---|---|---|",
        ]
        for rule in table {
            let audience = switch rule.audience {
            case nil: "everyone's"
            case .owner: "the hero's owner"
            case .others: "teammates'"
            }
            lines.append("| `\(rule.pattern)` | \(audience) | \(rule.priority) | "
                + (rule.alert.map { "`\($0.titleKey)`" } ?? "—") + " | "
                + (rule.alert.map { "`\($0.sound)`" } ?? "—") + " | \(rule.why) |")
        }
        return lines.joined(separator: "\n")
    }
}
