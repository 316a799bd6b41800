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
            let events = TickEventsText.texts(try Self.tickEvents(of: adventure, db))
            let outboxCount = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outboxMessage WHERE adventure = ?",
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
        try OutboxRow.fetchAll(db, sql: """
            SELECT \(OutboxRow.columns) FROM outboxMessage m JOIN outbox o ON o.id = m.id WHERE m.adventure = ? ORDER BY m.id
            """, arguments: [adventure.rawValue]).map { try $0.entry() }
    }

    static func eventLog(of adventure: AdventureID, _ db: Database) throws -> [LoggedEvent] {
        try TickEventsText.decoded(try tickEvents(of: adventure, db))
    }

    /// The adventure's rows of events, as stored (`TickEventsText`), in tick order.
    static func tickEvents(of adventure: AdventureID, _ db: Database) throws -> [(tick: Int, events: String)] {
        try Row.fetchAll(db, sql: "SELECT tick, events FROM tickEvents WHERE adventure = ? ORDER BY tick",
                         arguments: [adventure.rawValue]).map { (tick: $0[0], events: $0[1]) }
    }
}
