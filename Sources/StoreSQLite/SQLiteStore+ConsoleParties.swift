import Foundation
import GRDB
import Store
import Game
import Vocabulary

extension SQLiteStore {
    public func partyDirectory(search: PartySearch?, after: PartyDirectoryCursor?, limit: Int) async throws -> [PartyListing] {
        let (sql, arguments) = Self.directoryStatement(search: search, after: after, limit: limit)
        return try await read { db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                PartyListing(party: try PartyRow(row: row).value(), memberCount: row["memberCount"],
                             runningAdventure: (row["running"] as String?).map(AdventureID.init))
            }
        }
    }

    /// The directory's page (a test reads its query plan).
    static func directoryStatement(search: PartySearch?, after: PartyDirectoryCursor?, limit: Int) -> (String, StatementArguments) {
        var conditions: [String] = []
        var arguments: StatementArguments = []
        if let after {
            // A row value: the index on (name, id) gives the page from where the last one ended.
            conditions.append("(party.name, party.id) > (?, ?)")
            arguments += [after.name, after.id.rawValue]
        }
        switch search?.match {
        case nil:
            break
        case .inviteCode(let code)?:
            conditions.append("party.inviteCode = ?")
            arguments += [code.rawValue]
        case .name(let text)?:
            // lower() folds A–Z only, as PostgreSQL's does under the engines' shared order.
            conditions.append("instr(lower(party.name), lower(?)) > 0")
            arguments += [text]
        }
        arguments += [limit]
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let sql = """
            SELECT party.*, (SELECT count(*) FROM membership WHERE membership.party = party.id) AS memberCount,
                (SELECT adventure.id FROM adventure WHERE adventure.party = party.id AND adventure.status = 'running') AS running
            FROM party \(filter) ORDER BY party.name, party.id LIMIT ?
            """
        return (sql, arguments)
    }

    /// Row values against the partial index on (endedAt, id): each page one index range.
    static let finishedSQL = """
        SELECT * FROM adventure WHERE status != 'running' AND endedAt IS NOT NULL AND (endedAt, id) < (?, ?)
        ORDER BY endedAt DESC, id DESC LIMIT ?
        """

    static let answersSQL = """
        SELECT status, reason, count(*) FROM pushLog WHERE sentAt >= ? GROUP BY status, reason ORDER BY count(*) DESC, status, reason
        """

    public func finishedAdventures(after: FinishedAdventureCursor?, limit: Int) async throws -> [StoredAdventure] {
        try await read { db in
            try AdventureRow.fetchAll(db, sql: Self.finishedSQL, arguments: [after?.endedAt ?? Int.max, after?.id.rawValue ?? "", limit]).map { try $0.value() }
        }
    }

    public func adventureHolder(_ id: AdventureID) async throws -> String? {
        try await adventure(id).status == .running ? node : nil
    }

    public func deliveryHealth(since: Date) async throws -> DeliveryHealthReading {
        try await read { db in
            let answers = try Row.fetchAll(db, sql: Self.answersSQL, arguments: [since]).map { DeliveryHealthReading.Answers(status: $0[0], reason: $0[1], count: $0[2]) }
            let invalidated = try Int.fetchOne(db, sql: """
                SELECT (SELECT count(*) FROM activityToken WHERE invalidatedAt >= ? AND invalidReason != 'rotated')
                     + (SELECT count(*) FROM device WHERE pushToStartTokenInvalidAt >= ?)
                     + (SELECT count(*) FROM channelMember WHERE tokenInvalidAt >= ?)
                """, arguments: [since, since, since]) ?? 0
            let retried = try Int.fetchOne(db, sql: "SELECT count(*) FROM pushLog WHERE sentAt >= ? AND attempts > 1", arguments: [since]) ?? 0
            let channels = try Int.fetchOne(db, sql: "SELECT count(*) FROM followerChannel WHERE state != 'deleted'") ?? 0
            return DeliveryHealthReading(answers: answers, tokensInvalidated: invalidated, retried: retried, channelsInUse: channels)
        }
    }

    public func consolePlayers(_ players: [PlayerID]) async throws -> [ConsolePlayer] {
        let ids = players.map(\.rawValue)
        return try await read { db in
            let marks = databaseQuestionMarks(count: ids.count)
            let names = Dictionary(try Row.fetchAll(db, sql: "SELECT id, name FROM player WHERE id IN (\(marks))",
                                                    arguments: StatementArguments(ids)).map { ($0["id"] as String, $0["name"] as String) },
                                   uniquingKeysWith: { first, _ in first })
            let phones = try Row.fetchAll(db, sql: """
                SELECT id, player, pushToStartToken IS NOT NULL AND pushToStartTokenInvalidAt IS NULL AS registered,
                    pushToStartTokenInvalidReason, locale
                FROM device WHERE player IN (\(marks)) ORDER BY updatedAt, id
                """, arguments: StatementArguments(ids)).map { row in
                ConsolePhone(device: DeviceID(row[0] as String), player: PlayerID(row[1] as String), pushToStartRegistered: row[2],
                             invalidReason: row[3], locale: row[4])
            }
            return ids.compactMap { id in
                names[id].map { ConsolePlayer(id: PlayerID(id), name: $0, phones: phones.filter { $0.player.rawValue == id }) }
            }
        }
    }

    public func consoleActivities(of adventure: AdventureID) async throws -> [ConsoleActivity] {
        try await read { db in
            try Row.fetchAll(db, sql: """
                SELECT liveActivity.id, liveActivity.player, liveActivity.heroID, liveActivity.frequentUpdates, liveActivity.locale,
                    liveActivity.status,
                    (SELECT invalidReason FROM activityToken WHERE activity = liveActivity.id ORDER BY id DESC LIMIT 1)
                FROM liveActivity WHERE adventure = ? ORDER BY createdAt, rowid
                """, arguments: [adventure.rawValue]).compactMap { row in
                guard let status = LiveActivityStatus(rawValue: row[5]) else { return nil }
                return ConsoleActivity(id: ActivityID(row[0] as String), player: PlayerID(row[1] as String),
                                       hero: (row[2] as String?).map(HeroID.init), frequentUpdates: row[3], locale: row[4],
                                       status: status, tokenInvalidReason: row[6])
            }
        }
    }

    public func consoleWalkieTalkie(of party: PartyID) async throws -> ConsoleWalkieTalkie? {
        try await read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT id, createdAt, closedAt FROM channel WHERE party = ?",
                                             arguments: [party.rawValue]) else { return nil }
            let channel = Channel(id: ChannelID(row[0] as String), party: party, createdAt: row[1], closedAt: row[2])
            let listening = try Self.listeners(of: channel.id, db).map(\.player)
            return ConsoleWalkieTalkie(channel: channel, listening: listening)
        }
    }
}
