import Foundation
import Game
import GRDB
import Store
import Vocabulary

extension SQLiteStore {

    /// Creates a party with a fresh invite code; its creator joins with `hero`,
    /// which must be one of the heroes they picked. The party's Push To Talk
    /// channel is created with it, so it has a stable id from the start.
    public func createParty(name: String, by player: PlayerID, hero: HeroID,
                            at now: Date) async throws -> Party {
        let name = try StoredValueLimits.checkedName(name)
        return try await write { db in
            _ = try Self.requirePlayer(player, db)
            try PlayerRules.checkPicked(hero, isPicked: try Self.hasPicked(hero, by: player, db))
            var code = InviteCode.random()
            // 32^8 codes: a collision is rare, but a unique column turns one into a
            // failed request, so draw again instead.
            while try Bool.fetchOne(db, sql: "SELECT 1 FROM party WHERE inviteCode = ?", arguments: [code.rawValue]) ?? false {
                code = InviteCode.random()
            }
            let row = PartyRow(id: PartyID.random().rawValue, name: name, inviteCode: code.rawValue,
                               createdBy: player.rawValue, createdAt: now)
            try row.insert(db)
            try MembershipRow(party: row.id, player: player.rawValue, heroID: hero.rawValue, joinedAt: now).insert(db)
            try Self.createChannel(for: PartyID(row.id), at: now, db)
            return try Self.requireParty(PartyID(row.id), db).value()
        }
    }

    /// Joins the party the code names, with one of the player's heroes
    /// (`PartyRules.join` decides).
    @discardableResult
    public func joinParty(inviteCode typed: String, player: PlayerID, hero: HeroID,
                          at now: Date) async throws -> PartyMembership {
        guard let code = InviteCode(typed: typed) else { throw StoreError.unknownInviteCode(typed) }
        return try await write { db in
            guard let party = try PartyRow.fetchOne(db, sql: "SELECT * FROM party WHERE inviteCode = ?",
                                                    arguments: [code.rawValue])
            else { throw StoreError.unknownInviteCode(code.rawValue) }
            _ = try Self.requirePlayer(player, db)
            let members = try MembershipRow.fetchAll(db, sql: "SELECT * FROM membership WHERE party = ?", arguments: [party.id])
            let reading = PartyRules.JoinReading(
                partyName: party.name, members: members.map(\.value.member),
                heroIsPicked: try Self.hasPicked(hero, by: player, db),
                adventureIsRunning: try Self.runningAdventureID(of: PartyID(party.id), db) != nil)
            switch try PartyRules.join(PartyMember(player: player, hero: hero), reading) {
            case .alreadyMember:
                return members.first { $0.player == player.rawValue }!.value
            case .addMember:
                let row = MembershipRow(party: party.id, player: player.rawValue, heroID: hero.rawValue, joinedAt: now)
                return try row.insertAndFetch(db).value
            }
        }
    }

    /// Leaves a party. Allowed during an adventure (no one is held in a party), but
    /// the hero stays in that adventure's roster until it ends. If the player had
    /// joined the party's channel, `leaveChannelPush` builds the push that tells
    /// their app to leave it; their channel token is dropped once it is sent.
    public func leaveParty(_ party: PartyID, player: PlayerID, at now: Date,
                           leaveChannelPush: @escaping @Sendable (ChannelMember) -> OutboxMessage?
    ) async throws {
        try await write { db in
            _ = try Self.requireParty(party, db)
            try db.execute(sql: "DELETE FROM membership WHERE party = ? AND player = ?",
                           arguments: [party.rawValue, player.rawValue])
            guard db.changedRows else { throw StoreError.notAMember(of: party, player: player) }
            try Self.sendOffChannel(party: party, players: [player], at: now, leaveChannelPush, db)
        }
    }

    public func party(_ id: PartyID) async throws -> Party {
        try await read { db in try Self.requireParty(id, db).value() }
    }

    /// Members in the order they joined: the order a roster takes by default.
    public func members(of party: PartyID) async throws -> [PartyMembership] {
        try await read { db in
            _ = try Self.requireParty(party, db)
            return try Self.members(of: party, db)
        }
    }

    public func parties(of player: PlayerID) async throws -> [Party] {
        try await read { db in
            try PartyRow.fetchAll(db, sql: """
                SELECT party.* FROM party JOIN membership ON membership.party = party.id
                WHERE membership.player = ? ORDER BY party.createdAt, party.id
                """, arguments: [player.rawValue]).map { try $0.value() }
        }
    }

    /// The player's membership, or nil: what the API checks before letting a player
    /// read or act on a party.
    public func membership(of player: PlayerID, in party: PartyID) async throws -> PartyMembership? {
        try await read { db in
            try MembershipRow.fetchOne(db, sql: "SELECT * FROM membership WHERE party = ? AND player = ?",
                                       arguments: [party.rawValue, player.rawValue])?.value
        }
    }

    // MARK: - Shared checks

    static func requireParty(_ id: PartyID, _ db: Database) throws -> PartyRow {
        guard let row = try PartyRow.fetchOne(db, key: id.rawValue) else { throw StoreError.unknownParty(id) }
        return row
    }

    static func members(of party: PartyID, _ db: Database) throws -> [PartyMembership] {
        try MembershipRow.fetchAll(db, sql: "SELECT * FROM membership WHERE party = ? ORDER BY joinedAt, rowid",
                                   arguments: [party.rawValue]).map(\.value)
    }

    static func hasPicked(_ hero: HeroID, by player: PlayerID, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT 1 FROM playerHero WHERE player = ? AND heroID = ?",
                          arguments: [player.rawValue, hero.rawValue]) ?? false
    }

    static func runningAdventureID(of party: PartyID, _ db: Database) throws -> AdventureID? {
        try String.fetchOne(db, sql: "SELECT id FROM adventure WHERE party = ? AND status = 'running'",
                            arguments: [party.rawValue]).map(AdventureID.init)
    }
}
