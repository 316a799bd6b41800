import Foundation
import Game
import PushPolicy
import Vocabulary

/// A due adventure as the ticker reads it on each pass. The ticker keeps what it
/// committed last in memory, so the stored adventure, its reachable activities
/// and their budgets are read only when it does not have them already: after a
/// start, a restart, a tick it did not store itself, or a change to the activities.
public struct DueAdventure: Hashable, Sendable {
    public var id: AdventureID
    public var lastTick: Int
    /// Nil when the reader said it has the adventure at `lastTick`.
    public var stored: StoredAdventure?
    /// Waiting for the next tick, in the order they arrived.
    public var commands: [QueuedCommand]
    /// How many times the adventure's reachable activities have changed (one
    /// registered or ended, a token installed or invalidated): the same count, the
    /// same activities. It only grows.
    public var activityChanges: Int
    /// Nil when the reader said it holds them as of `activityChanges`.
    public var activities: DueActivities?
    /// The open followers' channels, by language.
    public var followerChannels: [DueFollowerChannel]

    public init(id: AdventureID, lastTick: Int, stored: StoredAdventure? = nil, commands: [QueuedCommand],
                activityChanges: Int, activities: DueActivities?, followerChannels: [DueFollowerChannel] = []) {
        self.id = id
        self.lastTick = lastTick
        self.stored = stored
        self.commands = commands
        self.activityChanges = activityChanges
        self.activities = activities
        self.followerChannels = followerChannels
    }
}

/// An adventure's activities that can receive a push now (active, with a valid
/// token), each in the order it was registered.
public struct DueActivities: Hashable, Sendable {
    /// The members'.
    public var members: [DueActivity]
    /// The followers' own (no hero).
    public var followers: [DueFollowerActivity]

    public init(members: [DueActivity] = [], followers: [DueFollowerActivity] = []) {
        self.members = members
        self.followers = followers
    }
}

/// What the reader of due adventures holds already from an earlier pass: that is
/// not read again.
public struct HeldByReader: Sendable {
    /// Holds the adventure as it was after this tick.
    public var adventure: @Sendable (AdventureID, Int) -> Bool
    /// Holds its reachable activities as of this many changes.
    public var activities: @Sendable (AdventureID, Int) -> Bool
    /// Holds this activity's budget.
    public var ledger: @Sendable (AdventureID, ActivityID) -> Bool

    public init(adventure: @escaping @Sendable (AdventureID, Int) -> Bool,
                activities: @escaping @Sendable (AdventureID, Int) -> Bool,
                ledger: @escaping @Sendable (AdventureID, ActivityID) -> Bool) {
        self.adventure = adventure
        self.activities = activities
        self.ledger = ledger
    }

    public static let nothing = HeldByReader(adventure: { _, _ in false }, activities: { _, _ in false }, ledger: { _, _ in false })

    /// Whether the activities are read: a reader that does not hold the adventure
    /// at its stored tick (`knowsAdventure` false) holds none of its budgets either,
    /// and they come with the activities.
    public func readsActivities(of adventure: AdventureID, changes: Int, knowsAdventure: Bool) -> Bool {
        !knowsAdventure || !activities(adventure, changes)
    }

    /// Whether an activity's budget is read with it.
    public func readsLedger(of adventure: AdventureID, _ activity: ActivityID, knowsAdventure: Bool) -> Bool {
        !knowsAdventure || !ledger(adventure, activity)
    }
}

public struct DueActivity: Hashable, Sendable {
    public var recipient: LiveActivityRecipient
    /// Nil when the reader said it has this activity's budget already; else as
    /// stored, which a routine push does not write back (`BudgetLedger.isWrittenBack`).
    public var ledger: BudgetLedger?
    /// With `ledger`, the tick of the newest push a tick queued for the activity;
    /// nil when none did. `DueActivities.ledgers(of:)` makes of both the budget
    /// the push policy goes on from.
    public var newestPushTick: Int?

    public init(recipient: LiveActivityRecipient, ledger: BudgetLedger? = nil, newestPushTick: Int? = nil) {
        self.recipient = recipient
        self.ledger = ledger
        self.newestPushTick = newestPushTick
    }
}

extension DueActivities {
    /// Each budget read (the members' and the followers' own), by activity, as
    /// the push policy goes on from it.
    public func ledgers(of adventure: StoredAdventure) -> [ActivityID: BudgetLedger] {
        Dictionary(uniqueKeysWithValues: members.compactMap { activity in
            activity.ledger.map { (activity.recipient.activityID, adventure.resumed($0, newestPushTick: activity.newestPushTick)) }
        } + followers.compactMap { activity in
            activity.ledger.map { (activity.recipient.activityID, adventure.resumed($0, newestPushTick: activity.newestPushTick)) }
        })
    }
}

extension StoredAdventure {
    /// A budget as stored, with the time of the newest push a tick of this
    /// adventure queued for its activity (at `newestPushTick`), which the stored
    /// budget may lack: what the push policy goes on from (`BudgetLedger.resumed`).
    public func resumed(_ ledger: BudgetLedger, newestPushTick: Int?) -> BudgetLedger {
        ledger.resumed(lastPushAt: newestPushTick.map {
            PushPolicy.time(ofTick: $0, startedAt: startedAt, tickInterval: setup.tickInterval)
        })
    }
}

/// One tick of one adventure, as the ticker computed it.
public struct TickRecord: Sendable {
    public var adventure: AdventureID
    public var tick: Int
    /// The state after the tick; `state.tick` must be `tick`.
    public let state: AdventureState
    public let events: [GameEvent]
    /// `state` and `events` as stored, encoded when the record is made — by the
    /// ticker, one slice per core — rather than inside the one writer's transaction.
    public let stateText: String
    public let eventTexts: [String]
    /// The queued commands the tick applied, in the order applied.
    public var appliedCommandIDs: [CommandID]
    public var outbox: [OutboxMessage]
    /// By activity id, as `PushPolicy.pushes(after:…ledgers:)` left them; an
    /// activity left out keeps its stored ledger.
    public var ledgers: [ActivityID: BudgetLedger]
    /// By followers' channel, the same way.
    public var channelLedgers: [FollowerChannelID: BudgetLedger]
    /// When the tick ends the adventure: the push that tells a member listening on
    /// the party's channel to leave it. Built inside the tick's transaction, so a
    /// member who joined a moment before is not missed.
    public var leaveChannelPush: (@Sendable (ChannelMember) -> OutboxMessage?)?

    public init(adventure: AdventureID, tick: Int, state: AdventureState, events: [GameEvent],
                appliedCommandIDs: [CommandID], outbox: [OutboxMessage], ledgers: [ActivityID: BudgetLedger],
                channelLedgers: [FollowerChannelID: BudgetLedger] = [:],
                leaveChannelPush: (@Sendable (ChannelMember) -> OutboxMessage?)? = nil) {
        self.adventure = adventure
        self.tick = tick
        self.state = state
        self.events = events
        stateText = CanonicalJSON.text(of: state)
        eventTexts = events.map(CanonicalJSON.text(of:))
        self.appliedCommandIDs = appliedCommandIDs
        self.outbox = outbox
        self.ledgers = ledgers
        self.channelLedgers = channelLedgers
        self.leaveChannelPush = leaveChannelPush
    }
}

/// The adventures a node holds leases on.
public enum HeldAdventures: Hashable, Sendable {
    /// Every adventure: the store is one process's.
    case all
    case only(Set<AdventureID>)

    public func contains(_ adventure: AdventureID) -> Bool {
        switch self {
        case .all: true
        case .only(let held): held.contains(adventure)
        }
    }
}

/// Where a stored tick left its adventure.
public struct StoredTick: Hashable, Sendable {
    public var lastTick: Int
    public var status: AdventureStatus
    /// Nil once the adventure is over.
    public var nextTickAt: Int?

    public init(lastTick: Int, status: AdventureStatus, nextTickAt: Int? = nil) {
        self.lastTick = lastTick
        self.status = status
        self.nextTickAt = nextTickAt
    }
}
