import Foundation
import Game
import PostgresNIO
import PushPolicy
import Store
import Vocabulary

extension PostgresStore {
    public func record(of adventure: AdventureID, includingOutbox: Bool) async throws -> AdventureRecord {
        try await snapshot { [self] connection in
            let stored = try await requireAdventure(adventure, lock: "", connection)
            // The members' activities: a follower's has no hero and no part in the game.
            let activities = try await connection.query("""
                SELECT id, player, hero_id, frequent_updates, locale FROM live_activity WHERE adventure = \(adventure.rawValue)
                AND hero_id IS NOT NULL ORDER BY created_at, id
                """, logger: logger).decodeAll((String, String, String, Bool, String).self).map {
                LiveActivityRecipient(activityID: ActivityID($0.0), player: PlayerID($0.1), hero: HeroID($0.2),
                                      frequentUpdates: $0.3, language: $0.4)
            }
            // The event text as stored, byte for byte: a replay compares it with its own.
            let events = TickEventsText.texts(try await tickEvents(of: adventure, connection))
            let commands = try await connection.query("""
                SELECT tick, command FROM command WHERE adventure = \(adventure.rawValue) AND tick IS NOT NULL ORDER BY tick, id
                """, logger: logger).decodeAll((Int, String).self).map {
                ScheduledCommand(tick: $0.0, command: try CommandJSON.decode($0.1))
            }
            var count = PostgresQuery(unsafeSQL: "SELECT COUNT(*) FROM (\(Self.adventurePushIDs)) AS pushes")
            count.binds.append(adventure.rawValue, context: .default)
            let outboxCount = try await connection.query(count, logger: logger).decodeOne(Int.self)
            return AdventureRecord(adventure: stored, commands: commands, events: events,
                                   outbox: includingOutbox ? try await outboxEntries(of: adventure, connection) : nil,
                                   outboxCount: outboxCount, activities: activities)
        }
    }

    /// The adventure's rows of events (`TickEventsText`), in tick order.
    func tickEvents(of adventure: AdventureID, _ connection: PostgresConnection) async throws -> [(tick: Int, events: String)] {
        try await connection.query("""
            SELECT tick, events FROM tick_log
            WHERE adventure_code = (SELECT code FROM adventure WHERE id = \(adventure.rawValue)) AND events IS NOT NULL ORDER BY tick
            """, logger: logger).decodeAll((Int, Data).self).map { (tick: $0.0, events: try StoredGameText.text(fromStored: $0.1)) }
    }
}
