import Foundation
import Game
import GRDB
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

extension RangersStore {
    public func record(of adventure: AdventureID, includingOutbox: Bool = true) async throws -> AdventureRecord {
        try await read { db in
            let stored = try Self.requireAdventure(adventure, db).value()
            let activities = try LiveActivityRow.fetchAll(db, sql: """
                SELECT * FROM liveActivity WHERE adventure = ? ORDER BY createdAt, id
                """, arguments: [adventure.rawValue]).map(\.recipient)
            var events: [LoggedEventText] = []
            let rows = try Row.fetchCursor(db, sql: "SELECT tick, event FROM event WHERE adventure = ? ORDER BY tick, position",
                                           arguments: [adventure.rawValue])
            while let row = try rows.next() {
                events.append(LoggedEventText(tick: row[0], json: row[1]))
            }
            let outboxCount = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outbox WHERE adventure = ?",
                                               arguments: [adventure.rawValue]) ?? 0
            return AdventureRecord(adventure: stored, commands: try Self.appliedCommands(of: adventure, db), events: events,
                                   outbox: includingOutbox ? try Self.outboxEntries(of: adventure, db) : nil,
                                   outboxCount: outboxCount, activities: activities)
        }
    }

    static func appliedCommands(of adventure: AdventureID, _ db: Database) throws -> [ScheduledCommand] {
        try CommandRow.fetchAll(db, sql: """
            SELECT * FROM command WHERE adventure = ? AND tick IS NOT NULL ORDER BY tick, id
            """, arguments: [adventure.rawValue]).map { ScheduledCommand(tick: $0.tick!, command: try $0.decodedCommand()) }
    }

    static func outboxEntries(of adventure: AdventureID, _ db: Database) throws -> [OutboxEntry] {
        try OutboxRow.fetchAll(db, sql: "SELECT * FROM outbox WHERE adventure = ? ORDER BY id",
                               arguments: [adventure.rawValue]).map { try $0.entry() }
    }

    static func eventLog(of adventure: AdventureID, _ db: Database) throws -> [LoggedEvent] {
        try EventRow.fetchAll(db, sql: "SELECT * FROM event WHERE adventure = ? ORDER BY tick, position",
                              arguments: [adventure.rawValue])
            .map { LoggedEvent(tick: $0.tick, position: $0.position, event: $0.event) }
    }
}
