import Foundation
import Game
import PostgresNIO
import Store
import Vocabulary

extension PostgresStore {
    public func createParty(name: String, by player: PlayerID, hero: HeroID, at now: Date) async throws -> Party {
        let name = try StoredValueLimits.checkedName(name)
        let id = PartyID.random()
        return try await transaction { [self] connection in
            try await requirePlayer(player, lock: "FOR SHARE", connection)
            try PlayerRules.checkPicked(hero, isPicked: try await hasPicked(hero, by: player, connection))
            // 32^8 codes: a collision is rare; the unique column refuses one, so
            // draw again rather than fail the request.
            var code = InviteCode.random()
            while try await connection.query("SELECT 1 FROM party WHERE invite_code = \(code.rawValue)", logger: logger)
                .decodeFirst(Int32.self) != nil {
                code = InviteCode.random()
            }
            try await connection.query("""
                INSERT INTO party (id, name, invite_code, created_by, created_at)
                VALUES (\(id.rawValue), \(name), \(code.rawValue), \(player.rawValue), \(now))
                """, logger: logger)
            try await connection.query("""
                INSERT INTO membership (party, player, hero_id, joined_at) VALUES (\(id.rawValue), \(player.rawValue), \(hero.rawValue), \(now))
                """, logger: logger)
            try await connection.query("""
                INSERT INTO channel (id, party, created_at) VALUES (\(UUID().uuidString.lowercased()), \(id.rawValue), \(now))
                """, logger: logger)
            return try await requireParty(id, connection)
        }
    }

    public func joinParty(inviteCode typed: String, player: PlayerID, hero: HeroID, at now: Date) async throws -> PartyMembership {
        guard let code = InviteCode(typed: typed) else { throw StoreError.unknownInviteCode(typed) }
        return try await transaction { [self] connection in
            // The party's row lock (FOR UPDATE): joins to one party run one after
            // another, each counting the members the one before left, so a party is
            // never above six however many join at once. The player's row FOR SHARE
            // keeps their heroes from being dropped meanwhile (`pickHeroes`).
            guard let (partyID, partyName) = try await connection.query("""
                SELECT id, name FROM party WHERE invite_code = \(code.rawValue) FOR UPDATE
                """, logger: logger).decodeFirst((String, String).self)
            else { throw StoreError.unknownInviteCode(code.rawValue) }
            try await requirePlayer(player, lock: "FOR SHARE", connection)
            let members = try await connection.query("""
                SELECT player, hero_id, joined_at FROM membership WHERE party = \(partyID)
                """, logger: logger).decodeAll((String, String, Date).self)
            let reading = PartyRules.JoinReading(
                partyName: partyName, members: members.map { PartyMember(player: PlayerID($0.0), hero: HeroID($0.1)) },
                heroIsPicked: try await hasPicked(hero, by: player, connection),
                adventureIsRunning: try await connection.query("""
                    SELECT 1 FROM adventure WHERE party = \(partyID) AND status = 'running'
                    """, logger: logger).decodeFirst(Int32.self) != nil)
            if try PartyRules.join(PartyMember(player: player, hero: hero), reading) == .alreadyMember {
                let joinedAt = members.first { $0.0 == player.rawValue }!.2
                return PartyMembership(party: PartyID(partyID), player: player, hero: hero, joinedAt: joinedAt)
            }
            let joinedAt = try await connection.query("""
                INSERT INTO membership (party, player, hero_id, joined_at)
                VALUES (\(partyID), \(player.rawValue), \(hero.rawValue), \(now)) RETURNING joined_at
                """, logger: logger).decodeOne(Date.self)
            return PartyMembership(party: PartyID(partyID), player: player, hero: hero, joinedAt: joinedAt)
        }
    }

    public func leaveParty(_ party: PartyID, player: PlayerID, at now: Date,
                           leaveChannelPush: @escaping @Sendable (ChannelMember) -> OutboxMessage?) async throws {
        try await transaction { [self] connection in
            _ = try await requireParty(party, connection)
            let left = try await connection.query("""
                DELETE FROM membership WHERE party = \(party.rawValue) AND player = \(player.rawValue) RETURNING player
                """, logger: logger).decodeFirst(String.self)
            guard left != nil else { throw StoreError.notAMember(of: party, player: player) }
            try await sendOffChannel(party: party, players: [player], at: now, leaveChannelPush, connection)
        }
    }

    public func party(_ id: PartyID) async throws -> Party {
        try await transaction { [self] connection in try await requireParty(id, connection) }
    }

    public func members(of party: PartyID) async throws -> [PartyMembership] {
        try await transaction { [self] connection in
            _ = try await requireParty(party, connection)
            return try await connection.query("""
                SELECT player, hero_id, joined_at FROM membership WHERE party = \(party.rawValue) ORDER BY joined_at, joined_order
                """, logger: logger).decodeAll((String, String, Date).self).map {
                PartyMembership(party: party, player: PlayerID($0.0), hero: HeroID($0.1), joinedAt: $0.2)
            }
        }
    }

    public func parties(of player: PlayerID) async throws -> [Party] {
        try await transaction { [self] connection in
            let ids = try await connection.query("""
                SELECT party.id FROM party JOIN membership ON membership.party = party.id
                WHERE membership.player = \(player.rawValue) ORDER BY party.created_at, party.id
                """, logger: logger).decodeAll(String.self)
            var parties: [Party] = []
            for id in ids { parties.append(try await requireParty(PartyID(id), connection)) }
            return parties
        }
    }

    public func membership(of player: PlayerID, in party: PartyID) async throws -> PartyMembership? {
        try await query("""
            SELECT hero_id, joined_at FROM membership WHERE party = \(party.rawValue) AND player = \(player.rawValue)
            """, logger: logger).decodeFirst((String, Date).self).map {
            PartyMembership(party: party, player: player, hero: HeroID($0.0), joinedAt: $0.1)
        }
    }

    // MARK: - Shared checks

    func requireParty(_ id: PartyID, _ connection: PostgresConnection) async throws -> Party {
        guard let (name, code, createdBy, createdAt) = try await connection.query("""
            SELECT name, invite_code, created_by, created_at FROM party WHERE id = \(id.rawValue)
            """, logger: logger).decodeFirst((String, String, String, Date).self),
            let inviteCode = InviteCode(typed: code)
        else { throw StoreError.unknownParty(id) }
        return Party(id: id, name: name, inviteCode: inviteCode, createdBy: PlayerID(createdBy), createdAt: createdAt)
    }

    /// FOR SHARE: the hero cannot be dropped (`pickHeroes` deletes the row) until
    /// the transaction that relies on it has ended.
    func hasPicked(_ hero: HeroID, by player: PlayerID, _ connection: PostgresConnection) async throws -> Bool {
        try await connection.query("""
            SELECT 1 FROM player_hero WHERE player = \(player.rawValue) AND hero_id = \(hero.rawValue) FOR SHARE
            """, logger: logger).decodeFirst(Int32.self) != nil
    }
}
