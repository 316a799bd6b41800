import Foundation
import Game
import GRDB
import PushPolicy
import Store
import Vocabulary

extension SQLiteStore {
    /// The party's channel. Parties get theirs when created; one from before
    /// channels existed gets it on first asking.
    public func channel(of party: PartyID, at now: Date) async throws -> Channel {
        // Nearly always there: a read finds it without waiting for the writer.
        if let existing = try await read({ db in try Self.channelRow(of: party, db).map(Self.channelValue) }) {
            return existing
        }
        return try await write { db in
            _ = try Self.requireParty(party, db)
            if try Self.channelRow(of: party, db) == nil { try Self.createChannel(for: party, at: now, db) }
            return try Self.channelValue(try Self.channelRow(of: party, db)!)
        }
    }

    /// A party member joins the channel with the token the system gave the app for
    /// it. Joining again replaces the token.
    @discardableResult
    public func joinChannel(_ channel: ChannelID, player: PlayerID, token: PushToken,
                            at now: Date) async throws -> ChannelMember {
        try await write { db in
            let row = try Self.requireChannel(channel, db)
            try Self.requirePartyMember(player, of: row["party"], db)
            try WalkieTalkieRules.checkJoin(channel, closedAt: row["closedAt"])
            let existing = try String.fetchOne(db, sql: "SELECT id FROM channelMember WHERE channel = ? AND player = ?",
                                               arguments: [channel.rawValue, player.rawValue])
            let id = existing ?? UUID().uuidString.lowercased()
            try db.execute(sql: """
                INSERT INTO channelMember (id, channel, player, token, tokenRegisteredAt, status, joinedAt)
                VALUES (?, ?, ?, ?, ?, 'joined', ?)
                ON CONFLICT (id) DO UPDATE SET token = excluded.token, tokenRegisteredAt = excluded.tokenRegisteredAt,
                    tokenInvalidAt = NULL, tokenInvalidReason = NULL, status = 'joined', joinedAt = excluded.joinedAt,
                    leftAt = NULL
                """, arguments: [id, channel.rawValue, player.rawValue, token.hex, now, now])
            return try Self.channelMember(ChannelMemberID(id), db)
        }
    }

    /// The app left the channel by itself: it needs no push, and its token is dropped.
    public func leaveChannel(_ channel: ChannelID, player: PlayerID, at now: Date) async throws {
        try await write { db in
            _ = try Self.requireChannel(channel, db)
            try db.execute(sql: """
                UPDATE channelMember SET status = 'left', token = NULL, leftAt = ? WHERE channel = ? AND player = ?
                """, arguments: [now, channel.rawValue, player.rawValue])
            guard db.changedRows else { throw StoreError.notInChannel(channel, player: player) }
        }
    }

    /// A game master closes the channel: every member still in it is told to leave.
    public func closeChannel(_ channel: ChannelID, at now: Date,
                             leaveChannelPush: @escaping @Sendable (ChannelMember) -> OutboxMessage?) async throws {
        try await write { db in
            let row = try Self.requireChannel(channel, db)
            try db.execute(sql: "UPDATE channel SET closedAt = ? WHERE id = ? AND closedAt IS NULL",
                           arguments: [now, channel.rawValue])
            try Self.sendOffChannel(party: PartyID(row["party"]), players: nil, at: now, leaveChannelPush, db)
        }
    }

    /// Members listening now (joined, with a valid token): whom a transmission or a
    /// leave push is for.
    public func channelMembers(of channel: ChannelID) async throws -> [ChannelMember] {
        try await read { db in
            _ = try Self.requireChannel(channel, db)
            return try Self.listeners(of: channel, db)
        }
    }

    /// Stores a transmission and queues the push `push` builds for each listener
    /// who hears it, in one transaction (`WalkieTalkieRules.transmit` decides).
    @discardableResult
    public func recordTransmission(_ new: NewTransmission, at now: Date,
                                   push: @escaping @Sendable (ChannelMember, Transmission) -> OutboxMessage) async throws -> Transmission {
        return try await write { db in
            let channel = try Self.requireChannel(new.channel, db)
            let hero = try Self.requirePartyMember(new.speaker, of: channel["party"], db)
            let speakingNow = try String.fetchAll(db, sql: """
                SELECT speaker FROM transmission WHERE channel = ? AND speakingUntil > ? ORDER BY speakingUntil
                """, arguments: [new.channel.rawValue, now]).map(PlayerID.init)
            let transmitting = try WalkieTalkieRules.transmit(
                new, at: now, channelClosed: (channel["closedAt"] as Date?) != nil,
                listeners: try Self.listeners(of: new.channel, db), speakingNow: speakingNow)
            let speakingUntil = transmitting.speakingUntil
            try db.execute(sql: """
                INSERT INTO transmission (id, channel, speaker, heroID, contentType, durationMilliseconds, byteCount,
                                          audio, createdAt, speakingUntil)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [new.id.rawValue, new.channel.rawValue, new.speaker.rawValue, hero.rawValue,
                                 new.contentType, new.durationMilliseconds, new.audio.count, new.audio, now, speakingUntil])
            let transmission = try Self.transmission(new.id, db)
            for listener in transmitting.recipients {
                try Self.enqueue(push(listener, transmission), adventure: nil, tick: nil, at: now.databaseValue, db)
            }
            return transmission
        }
    }

    /// A transmission with its audio, for a member of the channel's party.
    public func transmission(_ id: TransmissionID, for player: PlayerID) async throws -> Transmission {
        try await read { db in
            let transmission = try Self.transmission(id, db)
            let channel = try Self.requireChannel(transmission.channel, db)
            try Self.requirePartyMember(player, of: channel["party"], db)
            return transmission
        }
    }

    /// Retention: removes the audio of transmissions recorded before `cutoff`,
    /// keeping the record that they happened. Returns how many.
    @discardableResult
    public func deleteAudio(recordedBefore cutoff: Date, at now: Date) async throws -> Int {
        try await write { db in
            try db.execute(sql: """
                UPDATE transmission SET audio = NULL, audioDeletedAt = ? WHERE audio IS NOT NULL AND createdAt < ?
                """, arguments: [now, cutoff])
            return db.changesCount
        }
    }

    // MARK: - Shared steps

    static func transmission(_ id: TransmissionID, _ db: Database) throws -> Transmission {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM transmission WHERE id = ?", arguments: [id.rawValue])
        else { throw StoreError.unknownTransmission(id) }
        return Transmission(
            id: id, channel: ChannelID(row["channel"]), speaker: PlayerID(row["speaker"]), hero: HeroID(row["heroID"]),
            contentType: row["contentType"], durationMilliseconds: row["durationMilliseconds"],
            byteCount: row["byteCount"], createdAt: row["createdAt"], speakingUntil: row["speakingUntil"],
            audio: row["audio"])
    }

    static func createChannel(for party: PartyID, at now: Date, _ db: Database) throws {
        try db.execute(sql: "INSERT INTO channel (id, party, createdAt) VALUES (?, ?, ?)",
                       arguments: [UUID().uuidString.lowercased(), party.rawValue, now])
    }

    /// Tells the given players (nil: everyone) in the party's channel to leave:
    /// those with a token get the push `leaveChannelPush` builds; the others are
    /// simply marked as gone.
    static func sendOffChannel(party: PartyID, players: [PlayerID]?, at now: Date,
                               _ leaveChannelPush: (ChannelMember) -> OutboxMessage?, _ db: Database) throws {
        guard let channel = try channelRow(of: party, db) else { return }
        for member in try listeners(of: ChannelID(channel["id"]), db) where players?.contains(member.player) ?? true {
            if let message = leaveChannelPush(member) {
                try enqueue(message, adventure: nil, tick: nil, at: now.databaseValue, db)
            } else {
                try db.execute(sql: "UPDATE channelMember SET status = 'left', token = NULL, leftAt = ? WHERE id = ?",
                               arguments: [now, member.id.rawValue])
            }
        }
    }

    static func listeners(of channel: ChannelID, _ db: Database) throws -> [ChannelMember] {
        try Row.fetchAll(db, sql: """
            SELECT id FROM channelMember WHERE channel = ? AND status = 'joined' AND token IS NOT NULL
            AND tokenInvalidAt IS NULL ORDER BY joinedAt, id
            """, arguments: [channel.rawValue]).map { try channelMember(ChannelMemberID($0["id"]), db) }
    }

    static func channelMember(_ id: ChannelMemberID, _ db: Database) throws -> ChannelMember {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM channelMember WHERE id = ?", arguments: [id.rawValue]) else {
            throw StoreError.unknownChannelMember(id)
        }
        let status = try StoredValues.channelMemberStatus(row["status"], of: id)
        let token: String? = row["tokenInvalidAt"] as Date? == nil ? row["token"] : nil
        return ChannelMember(id: id, channel: ChannelID(row["channel"]), player: PlayerID(row["player"]), status: status,
                             token: token.map(PushToken.init(stored:)), joinedAt: row["joinedAt"])
    }

    static func channelRow(of party: PartyID, _ db: Database) throws -> Row? {
        try Row.fetchOne(db, sql: "SELECT * FROM channel WHERE party = ?", arguments: [party.rawValue])
    }

    static func requireChannel(_ id: ChannelID, _ db: Database) throws -> Row {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM channel WHERE id = ?", arguments: [id.rawValue]) else {
            throw StoreError.unknownChannel(id)
        }
        return row
    }

    static func channelValue(_ row: Row) throws -> Channel {
        Channel(id: ChannelID(row["id"]), party: PartyID(row["party"]), createdAt: row["createdAt"], closedAt: row["closedAt"])
    }

    /// The player's hero in the party; forbidden for anyone not in it.
    @discardableResult
    static func requirePartyMember(_ player: PlayerID, of party: String, _ db: Database) throws -> HeroID {
        try WalkieTalkieRules.member(hero: String.fetchOne(db, sql: "SELECT heroID FROM membership WHERE party = ? AND player = ?",
                                                            arguments: [party, player.rawValue]).map(HeroID.init))
    }
}
