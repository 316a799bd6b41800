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
            let outboxCount = try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM (\(Self.adventurePushesSQL))"),
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

    /// The ids of the adventure's pushes (`?1`): those its ticks queued, through
    /// the ranges their rows name, and those queued outside a tick or before v15,
    /// through their partial index. Not in order.
    static let adventurePushesSQL = """
        SELECT m.id FROM tickEvents t CROSS JOIN outboxMessage m ON m.id BETWEEN t.firstPush AND t.lastPush
        WHERE t.adventure = ?1 AND t.firstPush IS NOT NULL AND m.adventure = ?1 AND m.inTickRange
        UNION ALL
        SELECT id FROM outboxMessage INDEXED BY outboxMessage_outsideTicks
        WHERE adventure = ?1 AND NOT inTickRange AND adventure IS NOT NULL
        """

    static let outboxEntriesSQL = """
        WITH pushes(id) AS (\(adventurePushesSQL))
        SELECT \(OutboxRow.columns) FROM pushes CROSS JOIN outboxMessage m ON m.id = pushes.id JOIN outbox o ON o.id = m.id
        ORDER BY m.id
        """

    static func outboxEntries(of adventure: AdventureID, _ db: Database) throws -> [OutboxEntry] {
        try OutboxRow.fetchAll(db.cachedStatement(sql: outboxEntriesSQL), arguments: [adventure.rawValue]).map { try $0.entry() }
    }

    static func eventLog(of adventure: AdventureID, _ db: Database) throws -> [LoggedEvent] {
        try TickEventsText.decoded(try tickEvents(of: adventure, db))
    }

    /// The adventure's rows of events, as stored (`TickEventsText`), in tick order;
    /// not the rows of ticks that only queued pushes (v15).
    static func tickEvents(of adventure: AdventureID, _ db: Database) throws -> [(tick: Int, events: String)] {
        try Row.fetchAll(db, sql: "SELECT tick, events FROM tickEvents WHERE adventure = ? AND events != '' ORDER BY tick",
                         arguments: [adventure.rawValue]).map { (tick: $0[0], events: $0[1]) }
    }
}
