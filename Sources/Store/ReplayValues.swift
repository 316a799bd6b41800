import Foundation
import Game
import PushPolicy
import Vocabulary

/// Everything the store kept of one adventure, read from one snapshot: what a
/// replay plays again and compares with, and what a saved session file holds.
public struct AdventureRecord: Sendable {
    public var adventure: StoredAdventure
    /// The applied commands, each with the tick it was applied at.
    public var commands: [ScheduledCommand]
    /// The event log as stored: comparing text is much faster than decoding it.
    public var events: [LoggedEventText]
    /// Nil when not asked for; `outboxCount` is there either way.
    public var outbox: [OutboxEntry]?
    public var outboxCount: Int
    /// Every Live Activity the adventure had, whatever became of it, in the order registered.
    public var activities: [LiveActivityRecipient]

    public init(adventure: StoredAdventure, commands: [ScheduledCommand], events: [LoggedEventText], outbox: [OutboxEntry]? = nil, outboxCount: Int, activities: [LiveActivityRecipient]) {
        self.adventure = adventure
        self.commands = commands
        self.events = events
        self.outbox = outbox
        self.outboxCount = outboxCount
        self.activities = activities
    }
}

/// One entry of the event log, the event as the JSON text the store holds.
public struct LoggedEventText: Hashable, Sendable {
    public var tick: Int
    public var json: String

    public init(tick: Int, json: String) {
        self.tick = tick
        self.json = json
    }
}
