import Foundation
import Game
import PostgresNIO
import PushPolicy
import Store
import Vocabulary

extension PostgresStore {
    public func channel(of party: PartyID, at now: Date) async throws -> Store.Channel {
        try await transaction { [self] connection in
            if let existing = try await channelRow(of: party, connection) { return existing }
            _ = try await requireParty(party, connection)
            // A party from before channels: the unique `party` column lets one of two
            // first askers create it; the other reads it.
            try await connection.query("""
                INSERT INTO channel (id, party, created_at) VALUES (\(UUID().uuidString.lowercased()), \(party.rawValue), \(now))
                ON CONFLICT (party) DO NOTHING
                """, logger: logger)
            guard let channel = try await channelRow(of: party, connection) else {
                throw StoreError.corrupt("the channel of party \(party) was not created")
            }
            return channel
        }
    }

    public func joinChannel(_ channel: ChannelID, player: PlayerID, token: PushToken, at now: Date) async throws -> ChannelMember {
        try await transaction { [self] connection in
            // FOR SHARE: a close (which updates the row) waits for this join, or this
            // join sees it closed; a member never joins a channel being closed.
            let row = try await requireChannel(channel, lock: "FOR SHARE", connection)
            try await requirePartyMember(player, of: row.party, connection)
            try WalkieTalkieRules.checkJoin(channel, closedAt: row.closedAt)
            let id = try await connection.query("""
                INSERT INTO channel_member (id, channel, player, token, token_registered_at, status, joined_at)
                VALUES (\(UUID().uuidString.lowercased()), \(channel.rawValue), \(player.rawValue), \(token.hex), \(now), 'joined', \(now))
                ON CONFLICT (channel, player) DO UPDATE SET token = excluded.token,
                    token_registered_at = excluded.token_registered_at, token_invalid_at = NULL, token_invalid_reason = NULL,
                    status = 'joined', joined_at = excluded.joined_at, left_at = NULL
                RETURNING id
                """, logger: logger).decodeOne(String.self)
            return try await channelMember(ChannelMemberID(id), connection)
        }
    }

    public func leaveChannel(_ channel: ChannelID, player: PlayerID, at now: Date) async throws {
        try await transaction { [self] connection in
            _ = try await requireChannel(channel, lock: "", connection)
            let left = try await connection.query("""
                UPDATE channel_member SET status = 'left', token = NULL, left_at = \(now)
                WHERE channel = \(channel.rawValue) AND player = \(player.rawValue) RETURNING id
                """, logger: logger).decodeFirst(String.self)
            guard left != nil else { throw StoreError.notInChannel(channel, player: player) }
        }
    }

    public func closeChannel(_ channel: ChannelID, at now: Date,
                             leaveChannelPush: @escaping @Sendable (ChannelMember) -> OutboxMessage?) async throws {
        try await transaction { [self] connection in
            let row = try await requireChannel(channel, lock: "FOR UPDATE", connection)
            try await connection.query("""
                UPDATE channel SET closed_at = \(now) WHERE id = \(channel.rawValue) AND closed_at IS NULL
                """, logger: logger)
            try await sendOffChannel(party: row.party, players: nil, at: now, leaveChannelPush, connection)
        }
    }

    public func channelMembers(of channel: ChannelID) async throws -> [ChannelMember] {
        try await transaction { [self] connection in
            _ = try await requireChannel(channel, lock: "", connection)
            return try await listeners(of: channel, connection)
        }
    }

    public func recordTransmission(_ new: NewTransmission, at now: Date,
                                   push: @escaping @Sendable (ChannelMember, Transmission) -> OutboxMessage) async throws -> Transmission {
        return try await transaction { [self] connection in
            // The channel's row FOR UPDATE: transmissions on one channel take turns,
            // so each sees who is speaking after the one before; two members sending
            // at once cannot both take the channel.
            let channel = try await requireChannel(new.channel, lock: "FOR UPDATE", connection)
            let hero = try await requirePartyMember(new.speaker, of: channel.party, connection)
            let speakingNow = try await connection.query("""
                SELECT speaker FROM transmission WHERE channel = \(new.channel.rawValue) AND speaking_until > \(now)
                ORDER BY speaking_until
                """, logger: logger).decodeAll(String.self).map(PlayerID.init)
            let transmitting = try WalkieTalkieRules.transmit(
                new, at: now, channelClosed: channel.closedAt != nil,
                listeners: try await listeners(of: new.channel, connection), speakingNow: speakingNow)
            let speakingUntil = transmitting.speakingUntil
            try await connection.query("""
                INSERT INTO transmission (id, channel, speaker, hero_id, content_type, duration_milliseconds, byte_count, audio,
                                          created_at, speaking_until)
                VALUES (\(new.id.rawValue), \(new.channel.rawValue), \(new.speaker.rawValue), \(hero.rawValue), \(new.contentType),
                        \(new.durationMilliseconds), \(new.audio.count), \(new.audio), \(now), \(speakingUntil))
                """, logger: logger)
            let transmission = try await transmission(new.id, connection)
            try await enqueue(transmitting.recipients.map { QueuedMessage(message: push($0, transmission)) }, at: now, connection)
            return transmission
        }
    }

    public func transmission(_ id: TransmissionID, for player: PlayerID) async throws -> Transmission {
        try await transaction { [self] connection in
            let transmission = try await transmission(id, connection)
            let channel = try await requireChannel(transmission.channel, lock: "", connection)
            try await requirePartyMember(player, of: channel.party, connection)
            return transmission
        }
    }

    public func deleteAudio(recordedBefore cutoff: Date, at now: Date) async throws -> Int {
        try await query("""
            UPDATE transmission SET audio = NULL, audio_deleted_at = \(now) WHERE audio IS NOT NULL AND created_at < \(cutoff)
            RETURNING id
            """, logger: logger).decodeAll(String.self).count
    }

    // MARK: - Shared steps

    /// Tells the given players (nil: everyone) listening on the party's channel to
    /// leave: those the push can reach get it; the others are marked as gone.
    func sendOffChannel(party: PartyID, players: [PlayerID]?, at now: Date,
                        _ leaveChannelPush: (ChannelMember) -> OutboxMessage?, _ connection: PostgresConnection) async throws {
        guard let channel = try await connection.query("SELECT id FROM channel WHERE party = \(party.rawValue)", logger: logger)
            .decodeFirst(String.self) else { return }
        var pushes: [QueuedMessage] = []
        for member in try await listeners(of: ChannelID(channel), connection) where players?.contains(member.player) ?? true {
            if let message = leaveChannelPush(member) {
                pushes.append(QueuedMessage(message: message))
            } else {
                try await connection.query("""
                    UPDATE channel_member SET status = 'left', token = NULL, left_at = \(now) WHERE id = \(member.id.rawValue)
                    """, logger: logger)
            }
        }
        try await enqueue(pushes, at: now, connection)
    }

    /// Members listening (joined, with a valid token), in the order they joined.
    func listeners(of channel: ChannelID, _ connection: PostgresConnection) async throws -> [ChannelMember] {
        try await connection.query("""
            SELECT id, player, status, token, joined_at FROM channel_member
            WHERE channel = \(channel.rawValue) AND status = 'joined' AND token IS NOT NULL AND token_invalid_at IS NULL
            ORDER BY joined_at, id
            """, logger: logger).decodeAll((String, String, String, String?, Date).self).map { id, player, status, token, joinedAt in
            ChannelMember(id: ChannelMemberID(id), channel: channel, player: PlayerID(player),
                          status: ChannelMemberStatus(rawValue: status) ?? .left, token: token.map(PushToken.init(stored:)),
                          joinedAt: joinedAt)
        }
    }

    private func transmission(_ id: TransmissionID, _ connection: PostgresConnection) async throws -> Transmission {
        guard let row = try await connection.query("""
            SELECT channel, speaker, hero_id, content_type, duration_milliseconds, byte_count, created_at, speaking_until, audio
            FROM transmission WHERE id = \(id.rawValue)
            """, logger: logger).decodeFirst((String, String, String, String, Int, Int, Date, Date, Data?).self)
        else { throw StoreError.unknownTransmission(id) }
        let (channel, speaker, hero, contentType, duration, byteCount, createdAt, speakingUntil, audio) = row
        return Transmission(id: id, channel: ChannelID(channel), speaker: PlayerID(speaker), hero: HeroID(hero),
                            contentType: contentType, durationMilliseconds: duration, byteCount: byteCount,
                            createdAt: createdAt, speakingUntil: speakingUntil, audio: audio)
    }

    private func channelMember(_ id: ChannelMemberID, _ connection: PostgresConnection) async throws -> ChannelMember {
        guard let (channel, player, storedStatus, token, joinedAt) = try await connection.query("""
            SELECT channel, player, status, CASE WHEN token_invalid_at IS NULL THEN token END, joined_at
            FROM channel_member WHERE id = \(id.rawValue)
            """, logger: logger).decodeFirst((String, String, String, String?, Date).self)
        else { throw StoreError.unknownChannelMember(id) }
        return ChannelMember(id: id, channel: ChannelID(channel), player: PlayerID(player),
                             status: try StoredValues.channelMemberStatus(storedStatus, of: id),
                             token: token.map(PushToken.init(stored:)), joinedAt: joinedAt)
    }

    private func channelRow(of party: PartyID, _ connection: PostgresConnection) async throws -> Store.Channel? {
        try await connection.query("""
            SELECT id, created_at, closed_at FROM channel WHERE party = \(party.rawValue)
            """, logger: logger).decodeFirst((String, Date, Date?).self).map {
            Store.Channel(id: ChannelID($0.0), party: party, createdAt: $0.1, closedAt: $0.2)
        }
    }

    /// `lock` is a row-locking clause written here, never input.
    private func requireChannel(_ id: ChannelID, lock: StaticString, _ connection: PostgresConnection) async throws -> Store.Channel {
        var query = PostgresQuery(unsafeSQL: "SELECT party, created_at, closed_at FROM channel WHERE id = $1 \(lock)")
        query.binds.append(id.rawValue, context: .default)
        guard let (party, createdAt, closedAt) = try await connection.query(query, logger: logger)
            .decodeFirst((String, Date, Date?).self)
        else { throw StoreError.unknownChannel(id) }
        return Store.Channel(id: id, party: PartyID(party), createdAt: createdAt, closedAt: closedAt)
    }

    /// The player's hero in the party; forbidden for anyone not in it.
    @discardableResult
    private func requirePartyMember(_ player: PlayerID, of party: PartyID, _ connection: PostgresConnection) async throws -> HeroID {
        try WalkieTalkieRules.member(hero: try await connection.query("""
            SELECT hero_id FROM membership WHERE party = \(party.rawValue) AND player = \(player.rawValue)
            """, logger: logger).decodeFirst(String.self).map(HeroID.init))
    }
}
