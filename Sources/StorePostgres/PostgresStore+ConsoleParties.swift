import Foundation
import PostgresNIO
import Store
import Game
import Vocabulary

extension PostgresStore {
    public func partyDirectory(search: PartySearch?, after: PartyDirectoryCursor?, limit: Int) async throws -> [PartyListing] {
        // Byte order ("C"), as SQLite's: the same directory on either engine, and the
        // index on (name COLLATE "C", id) gives each page from where the last ended.
        // A condition whose parameter is null is dropped when the statement is planned.
        let (name, code): (String?, String?) = switch search?.match {
        case nil: (nil, nil)
        case .inviteCode(let code)?: (nil, code.rawValue)
        case .name(let text)?: (text, nil)
        }
        let rows = try await query("""
            SELECT p.id, p.name, p.invite_code, p.created_by, p.created_at,
                (SELECT count(*) FROM membership m WHERE m.party = p.id)::bigint,
                (SELECT a.id FROM adventure a WHERE a.party = p.id AND a.status = 'running')
            FROM party p
            WHERE (\(after?.name)::text IS NULL OR (p.name COLLATE "C", p.id) > (\(after?.name)::text COLLATE "C", \(after?.id.rawValue)::text))
              AND (\(name)::text IS NULL OR strpos(lower(p.name), lower(\(name)::text)) > 0)
              AND (\(code)::text IS NULL OR p.invite_code = \(code)::text)
            ORDER BY p.name COLLATE "C", p.id LIMIT \(limit)
            """, logger: logger).decodeAll((String, String, String, String, Date, Int64, String?).self)
        return try rows.map { id, name, code, createdBy, createdAt, members, running in
            guard let inviteCode = InviteCode(typed: code) else { throw StoreError.corrupt("invite code of party \(id)") }
            return PartyListing(party: Party(id: PartyID(id), name: name, inviteCode: inviteCode, createdBy: PlayerID(createdBy),
                                             createdAt: createdAt),
                                memberCount: Int(members), runningAdventure: running.map(AdventureID.init))
        }
    }

    public func finishedAdventures(after: FinishedAdventureCursor?, limit: Int) async throws -> [StoredAdventure] {
        var query = PostgresQuery(unsafeSQL: """
            SELECT \(Self.adventureColumns) FROM adventure
            WHERE status <> 'running' AND ended_at IS NOT NULL AND (ended_at, id COLLATE "C") < ($1, $2 COLLATE "C")
            ORDER BY ended_at DESC, id COLLATE "C" DESC LIMIT $3
            """)
        query.binds.append(after?.endedAt ?? Int.max, context: .default)
        query.binds.append(after?.id.rawValue ?? "", context: .default)
        query.binds.append(limit, context: .default)
        return try await self.query(query, logger: logger).decodeAll(AdventureColumns.self).map(Self.adventure)
    }

    public func adventureHolder(_ adventure: AdventureID) async throws -> String? {
        try await query("""
            SELECT lease_holder FROM adventure
            WHERE id = \(adventure.rawValue) AND status = 'running' AND lease_holder IS NOT NULL AND lease_until > now()
            """, logger: logger).decodeFirst(String.self)
    }

    public func deliveryHealth(since: Date) async throws -> DeliveryHealthReading {
        try await transaction { [self] connection in
            let answers = try await connection.query("""
                SELECT status, reason, count(*)::bigint FROM push_log WHERE sent_at >= \(since)
                GROUP BY status, reason ORDER BY count(*) DESC, status, reason
                """, logger: logger).decodeAll((Int?, String?, Int64).self).map {
                DeliveryHealthReading.Answers(status: $0.0, reason: $0.1, count: Int($0.2))
            }
            let invalidated = try await connection.query("""
                SELECT ((SELECT count(*) FROM activity_token WHERE invalidated_at >= \(since) AND invalid_reason <> 'rotated')
                     + (SELECT count(*) FROM device WHERE push_to_start_token_invalid_at >= \(since))
                     + (SELECT count(*) FROM channel_member WHERE token_invalid_at >= \(since)))::bigint
                """, logger: logger).decodeOne(Int64.self)
            let retried = try await connection.query("""
                SELECT count(*)::bigint FROM push_log WHERE sent_at >= \(since) AND attempts > 1
                """, logger: logger).decodeOne(Int64.self)
            let channels = try await connection.query("""
                SELECT count(*)::bigint FROM follower_channel WHERE state <> 'deleted'
                """, logger: logger).decodeOne(Int64.self)
            return DeliveryHealthReading(answers: answers, tokensInvalidated: Int(invalidated), retried: Int(retried),
                                         channelsInUse: Int(channels))
        }
    }

    public func consolePlayers(_ players: [PlayerID]) async throws -> [ConsolePlayer] {
        let ids = players.map(\.rawValue)
        return try await transaction { [self] connection in
            let names = Dictionary(try await connection.query("SELECT id, name FROM player WHERE id = ANY(\(ids)::text[])",
                                                              logger: logger).decodeAll((String, String).self),
                                   uniquingKeysWith: { first, _ in first })
            let phones = try await connection.query("""
                SELECT id, player, push_to_start_token IS NOT NULL AND push_to_start_token_invalid_at IS NULL,
                    push_to_start_token_invalid_reason, locale
                FROM device WHERE player = ANY(\(ids)::text[]) ORDER BY updated_at, id
                """, logger: logger).decodeAll((String, String, Bool, String?, String).self).map {
                ConsolePhone(device: DeviceID($0.0), player: PlayerID($0.1), pushToStartRegistered: $0.2, invalidReason: $0.3, locale: $0.4)
            }
            return ids.compactMap { id in
                names[id].map { ConsolePlayer(id: PlayerID(id), name: $0, phones: phones.filter { $0.player.rawValue == id }) }
            }
        }
    }

    public func consoleActivities(of adventure: AdventureID) async throws -> [ConsoleActivity] {
        try await query("""
            SELECT a.id, a.player, a.hero_id, a.frequent_updates, a.locale, a.status,
                (SELECT t.invalid_reason FROM activity_token t WHERE t.activity = a.id ORDER BY t.id DESC LIMIT 1)
            FROM live_activity a WHERE a.adventure = \(adventure.rawValue) ORDER BY a.created_at, a.created_order
            """, logger: logger).decodeAll((String, String, String?, Bool, String, String, String?).self).compactMap { row in
            guard let status = LiveActivityStatus(rawValue: row.5) else { return nil }
            return ConsoleActivity(id: ActivityID(row.0), player: PlayerID(row.1), hero: row.2.map(HeroID.init), frequentUpdates: row.3,
                                   locale: row.4, status: status, tokenInvalidReason: row.6)
        }
    }

    public func consoleWalkieTalkie(of party: PartyID) async throws -> ConsoleWalkieTalkie? {
        try await transaction { [self] connection in
            guard let (id, createdAt, closedAt) = try await connection.query("""
                SELECT id, created_at, closed_at FROM channel WHERE party = \(party.rawValue)
                """, logger: logger).decodeFirst((String, Date, Date?).self) else { return nil }
            let channel = Channel(id: ChannelID(id), party: party, createdAt: createdAt, closedAt: closedAt)
            return ConsoleWalkieTalkie(channel: channel, listening: try await listeners(of: channel.id, connection).map(\.player))
        }
    }
}
