import Catalog
import Game
import Vocabulary

/// The one way from a tick's inputs to what it decides: the game plays the tick,
/// the push policy decides each Live Activity's push from its events. Made once
/// per adventure from its setup; the ticker, the recorder, push replay and
/// `rangers simulate` all go through it, so none of them can decide differently.
/// Pure: game time comes from the adventure's start and tick interval, never a clock.
public struct TickPipeline: Sendable {
    public let policy: PushPolicy
    /// The policy's: kept once, as a node keeps a pipeline per running adventure.
    public var adventure: Adventure { policy.adventure }

    /// `sharingWith`: a pipeline of another adventure, whose resolved rules this
    /// one shares when both have the same route and heroes (see `Adventure`).
    public init(adventureID: AdventureID, setup: AdventureSetup, startedAt: Int, content: GameContent,
                strings: StringCatalog, configuration: PushPolicyConfiguration, sharingWith other: TickPipeline? = nil) throws {
        let adventure = try Adventure(setup: setup, content: content, sharingWith: other?.adventure)
        policy = PushPolicy(configuration: configuration, adventureID: adventureID, adventure: adventure,
                            content: content, strings: strings, startedAt: startedAt)
    }

    /// Tick 0: the adventure's first state and a push-to-start for each device.
    public func start(pushToStart recipients: [PushToStartRecipient]) throws -> (state: AdventureState, decisions: [PushDecision]) {
        let state = adventure.start()
        return (state, try policy.pushesForStart(state: state, recipients: recipients))
    }

    /// Plays the tick after `state` with `commands` applied at its start, then decides
    /// the push of each activity in `recipients` against `ledgers`, and then the
    /// followers' (`followerLedgers` holds each channel's budget; a follower's own
    /// activity keeps its budget in `ledgers`, as a member's does).
    public func tick(_ state: AdventureState, commands: [Command], recipients: [LiveActivityRecipient],
                     ledgers: [ActivityID: BudgetLedger], followers: Followers = .none,
                     followerLedgers: [FollowerChannelID: BudgetLedger] = [:]) throws -> TickOutcome {
        let (after, events) = adventure.tick(state, commands: commands)
        var updated = ledgers
        var decisions = try policy.pushes(after: events, state: after, recipients: recipients, ledgers: &updated)
        var channelLedgers = followerLedgers
        if !followers.isEmpty {
            decisions += try policy.followerPushes(after: events, state: after, followers: followers,
                                                   activityLedgers: &updated, channelLedgers: &channelLedgers)
        }
        return TickOutcome(state: after, events: events, decisions: decisions, ledgers: updated, before: ledgers,
                           channelLedgers: channelLedgers, channelsBefore: followerLedgers)
    }

    /// Plays from the start until the adventure ends (or through `lastTick`), each
    /// command at its tick, deciding every tick's pushes for the same `recipients`;
    /// `observe` sees each tick's outcome in order.
    public func play(commands: [ScheduledCommand], recipients: [LiveActivityRecipient], followers: Followers = .none,
                     through lastTick: Int = .max, observe: (TickOutcome) throws -> Void) throws {
        let byTick = Dictionary(grouping: commands, by: \.tick).mapValues { $0.map(\.command) }
        var state = adventure.start()
        var ledgers: [ActivityID: BudgetLedger] = [:]
        var channelLedgers: [FollowerChannelID: BudgetLedger] = [:]
        while state.isRunning, state.tick < lastTick {
            let outcome = try tick(state, commands: byTick[state.tick + 1] ?? [], recipients: recipients, ledgers: ledgers,
                                   followers: followers, followerLedgers: channelLedgers)
            state = outcome.state
            ledgers = outcome.ledgers
            channelLedgers = outcome.channelLedgers
            try observe(outcome)
        }
    }
}

/// What one tick decided.
public struct TickOutcome: Sendable {
    public var state: AdventureState
    public var events: [GameEvent]
    /// At most one per activity, in the order of the recipients; then at most one
    /// per followers' channel and per follower's activity, in their order.
    public var decisions: [PushDecision]
    /// Every activity's budget after the tick.
    public var ledgers: [ActivityID: BudgetLedger]
    /// The budgets this tick changed that are written back: those whose
    /// high-priority pushes changed (`BudgetLedger.isWrittenBack`).
    public var spentLedgers: [ActivityID: BudgetLedger]
    /// Every followers' channel's budget after the tick, and every one the tick
    /// changed: a channel's budget is read with it on every tick, not resumed, so
    /// each change is written back.
    public var channelLedgers: [FollowerChannelID: BudgetLedger]
    public var spentChannelLedgers: [FollowerChannelID: BudgetLedger]

    init(state: AdventureState, events: [GameEvent], decisions: [PushDecision], ledgers: [ActivityID: BudgetLedger],
         before: [ActivityID: BudgetLedger], channelLedgers: [FollowerChannelID: BudgetLedger],
         channelsBefore: [FollowerChannelID: BudgetLedger]) {
        self.state = state
        self.events = events
        self.decisions = decisions
        self.ledgers = ledgers
        spentLedgers = ledgers.filter { $0.value.isWrittenBack(after: before[$0.key]) }
        self.channelLedgers = channelLedgers
        spentChannelLedgers = channelLedgers.filter { channelsBefore[$0.key] != $0.value }
    }
}
