import Catalog
import Foundation
import Game
import PushPolicy
import Vocabulary
import Wire

enum PolicyFixtures {
    static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let repositoryRoot = testsDirectory.deletingLastPathComponent().deletingLastPathComponent()
    static let contentDirectory = repositoryRoot.appendingPathComponent("Content")

    /// The shipped Content/, loaded and checked once.
    static let loaded: LoadedContent = {
        do {
            return try LoadedContent.load(from: contentDirectory)
        } catch {
            fatalError("shipped content must load: \(error)")
        }
    }()

    static var content: GameContent { loaded.game }
    static var strings: StringCatalog { loaded.strings }

    /// 2026-01-01T00:00:00Z: every adventure in these tests starts then.
    static let startedAt = 1_767_225_600

    /// Seconds from 1970-01-01 to 2001-01-01, Swift's reference date; written out
    /// rather than taken from Foundation so a test can't share a mistake with the code.
    static let secondsFrom1970To2001 = 978_307_200

    static let trio: [PartyMember] = [
        PartyMember(player: "player-1", hero: "power-panda"),
        PartyMember(player: "player-2", hero: "egghead"),
        PartyMember(player: "player-3", hero: "spouty"),
    ]

    static func adventure(
        seed: UInt64 = 42, party: [PartyMember] = trio, route: RouteID = "whispering-woods",
        tickInterval: Int = 10, timeLimit: Int = AdventureSetup.longestTimeLimit
    ) throws -> Adventure {
        try Adventure(
            setup: AdventureSetup(route: route, party: party, tickInterval: tickInterval, timeLimit: timeLimit, seed: seed),
            content: content)
    }

    static func activityID(_ player: PlayerID) -> ActivityID { ActivityID("activity-\(player.rawValue)") }

    /// One Live Activity per party member.
    static func recipients(_ party: [PartyMember], frequentUpdates: Bool = true, language: String = "en")
        -> [LiveActivityRecipient]
    {
        party.map {
            LiveActivityRecipient(activityID: activityID($0.player), player: $0.player, hero: $0.hero,
                                  frequentUpdates: frequentUpdates, language: language)
        }
    }

    static func pipeline(_ adventure: Adventure, configuration: PushPolicyConfiguration = .standard) -> TickPipeline {
        try! TickPipeline(adventureID: AdventureID("adv-\(adventure.setup.seed)"), setup: adventure.setup,
                          startedAt: startedAt, content: content, strings: strings, configuration: configuration)
    }

    static func policy(_ adventure: Adventure, configuration: PushPolicyConfiguration = .standard) -> PushPolicy {
        pipeline(adventure, configuration: configuration).policy
    }

    /// The health level the widget should show: health over max health, worked
    /// out here without the policy's rounding so a comparison within half a
    /// thousandth checks the value independently.
    static func level(_ health: Int, _ maxHealth: Int) -> Double { Double(health) / Double(maxHealth) }

    /// Within the three decimals the widget gets (half a thousandth, plus float noise).
    static func isClose(_ shown: Double, _ exact: Double) -> Bool { abs(shown - exact) <= 0.0005 + 1e-9 }

    static func hero(_ id: HeroID) -> HeroDefinition { content.hero(id)! }
    static func boss(_ id: BossID) -> BossDefinition { content.boss(id)! }
}

/// An adventure played from start to end, each tick's events and state fed to
/// the policy with the ledgers carried from tick to tick, as the server does.
struct PolicyRun: Sendable {
    struct Tick: Sendable {
        var state: AdventureState
        var events: [GameEvent]
        var decisions: [PushDecision]
    }

    /// A push to one activity, with the tick it was decided at (0: push-to-start).
    struct Sent: Sendable {
        var tick: Int
        var decision: PushDecision
        var state: AdventureState
    }

    let adventure: Adventure
    let policy: PushPolicy
    let recipients: [LiveActivityRecipient]
    let followers: Followers
    /// Push-to-start for the members' devices, then for followers' (`followerStarts`).
    let startPushes: [PushDecision]
    let startState: AdventureState
    let ticks: [Tick]
    let finalState: AdventureState
    let ledgers: [ActivityID: BudgetLedger]
    let channelLedgers: [FollowerChannelID: BudgetLedger]

    init(_ adventure: Adventure, configuration: PushPolicyConfiguration = .standard,
         recipients: [LiveActivityRecipient]? = nil, pushToStart: [PushToStartRecipient] = [],
         followers: Followers = .none, followerStarts: [FollowerStartRecipient] = [],
         commands: [ScheduledCommand] = []) throws {
        self.adventure = adventure
        let pipeline = PolicyFixtures.pipeline(adventure, configuration: configuration)
        policy = pipeline.policy
        let recipients = recipients ?? PolicyFixtures.recipients(adventure.setup.party)
        self.recipients = recipients
        self.followers = followers
        var startPushes: [PushDecision]
        (startState, startPushes) = try pipeline.start(pushToStart: pushToStart)
        for follower in followerStarts {
            startPushes.append(try policy.pushForFollowerStart(state: startState, recipient: follower))
        }
        self.startPushes = startPushes
        var ledgers: [ActivityID: BudgetLedger] = [:]
        var channelLedgers: [FollowerChannelID: BudgetLedger] = [:]
        var ticks: [Tick] = []
        var finalState = startState
        try pipeline.play(commands: commands, recipients: recipients, followers: followers) { outcome in
            ticks.append(Tick(state: outcome.state, events: outcome.events, decisions: outcome.decisions))
            ledgers = outcome.ledgers
            channelLedgers = outcome.channelLedgers
            finalState = outcome.state
        }
        self.finalState = finalState
        self.ticks = ticks
        self.ledgers = ledgers
        self.channelLedgers = channelLedgers
    }

    /// Every broadcast to a followers' channel, oldest first.
    func sent(to channel: FollowerChannelRecipient) -> [Sent] {
        ticks.flatMap { tick in
            tick.decisions.filter { $0.target == .followerChannel(id: channel.channel) }
                .map { Sent(tick: tick.state.tick, decision: $0, state: tick.state) }
        }
    }

    /// Every push to a follower's own activity (its push-to-start, then updates), oldest first.
    func sent(to follower: FollowerActivityRecipient) -> [Sent] {
        let start = startPushes.filter { $0.target == .pushToStart(player: follower.player) }
            .map { Sent(tick: 0, decision: $0, state: startState) }
        return start + ticks.flatMap { tick in
            tick.decisions.filter { $0.target == .liveActivity(id: follower.activityID) }
                .map { Sent(tick: tick.state.tick, decision: $0, state: tick.state) }
        }
    }

    var allDecisions: [PushDecision] { startPushes + ticks.flatMap(\.decisions) }

    /// Every push that reached `recipient`'s activity, oldest first: its
    /// push-to-start (the start creates this very activity) and then its updates and end.
    func sent(to recipient: LiveActivityRecipient) -> [Sent] {
        let start = startPushes.filter { $0.target == .pushToStart(player: recipient.player) }
            .map { Sent(tick: 0, decision: $0, state: startState) }
        return start + ticks.flatMap { tick in
            tick.decisions.filter { $0.target == .liveActivity(id: recipient.activityID) }
                .map { Sent(tick: tick.state.tick, decision: $0, state: tick.state) }
        }
    }

    /// The tick whose events contain one matching `predicate`.
    func tick(where predicate: (GameEvent) -> Bool) -> Tick? {
        ticks.first { $0.events.contains(where: predicate) }
    }

    func decision(for player: PlayerID, in tick: Tick) -> PushDecision? {
        tick.decisions.first { $0.target == .liveActivity(id: PolicyFixtures.activityID(player)) }
    }
}

/// What the phone does with a body: ActivityKit hands `content-state` (and for
/// push-to-start `attributes`) to a default `JSONDecoder`.
struct PhoneView: Decodable {
    struct APS: Decodable {
        var contentState: AdventureAttributes.ContentState
        var attributes: AdventureAttributes?
        enum CodingKeys: String, CodingKey {
            case contentState = "content-state"
            case attributes
        }
    }

    var aps: APS

    static func decode(_ body: Data) throws -> PhoneView {
        try JSONDecoder().decode(PhoneView.self, from: body)
    }
}

extension AlertText {
    var key: String? {
        if case .localized(let key, _) = self { key } else { nil }
    }

    var args: [String]? {
        if case .localized(_, let args) = self { args } else { nil }
    }
}

extension LiveActivityPayload {
    var isEnd: Bool { if case .end = event { true } else { false } }
    var isUpdate: Bool { if case .update = event { true } else { false } }
    var isStart: Bool { if case .start = event { true } else { false } }
}
