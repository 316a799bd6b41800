import Foundation
import Game
import GRDB
import PushPolicy
import Store
import Vocabulary

extension SQLiteStore {
    public func record(of adventure: AdventureID, includingOutbox: Bool) async throws -> AdventureRecord {
        try await read { db in
            let stored = try Self.requireAdventure(adventure, db).value()
            // The members' activities: a follower's has no hero and no part in the game.
            let activities = try LiveActivityRow.fetchAll(db, sql: """
                SELECT * FROM liveActivity WHERE adventure = ? AND heroID IS NOT NULL ORDER BY createdAt, id
                """, arguments: [adventure.rawValue]).compactMap(\.recipient)
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
