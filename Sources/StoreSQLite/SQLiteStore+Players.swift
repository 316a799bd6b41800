import Foundation
import Game
import GRDB
import Store
import Vocabulary

extension SQLiteStore {

    /// Creates a player and returns their API key. The key is not stored and cannot
    /// be shown again: only its hash is kept.
    public func createPlayer(name: String, at now: Date) async throws -> (player: Player, apiKey: String) {
        let name = try StoredValueLimits.checkedName(name)
        let apiKey = APIKey.generate()
        let row = PlayerRow(id: UUID().uuidString.lowercased(), name: name, apiKeyHash: APIKey.hash(apiKey), createdAt: now)
        // Returned as read back, so its dates have the precision they are stored with.
        let player = try await write { db in try row.insertAndFetch(db).value }
        return (player, apiKey)
    }

    /// The player whose key this is, or nil: for a malformed key, an unknown key,
    /// or a hash that differs in any byte.
    public func player(authenticatedBy apiKey: String) async throws -> Player? {
        guard let presented = APIKey.hash(ofPresented: apiKey) else { return nil }
        let row = try await read { db in
            try PlayerRow.fetchOne(db.cachedStatement(sql: "SELECT * FROM player WHERE apiKeyHash = ?"), arguments: [presented])
        }
        // The lookup already matched; comparing again in constant time guards
        // against an index that matched on anything less than all 32 bytes.
        guard let row, constantTimeEqual(expected: row.apiKeyHash, given: presented) else { return nil }
        return row.value
    }

    /// Sets the heroes a player plays, replacing the previous choice. A hero the
    /// player is using in a party cannot be dropped while they are in it.
    /// Which heroes exist is the content's business: the API checks that first.
    @discardableResult
    public func pickHeroes(_ heroes: [HeroID], for player: PlayerID) async throws -> [HeroID] {
        let chosen = try PlayerRules.heroPick(heroes)
        return try await write { db in
            _ = try Self.requirePlayer(player, db)
            let inUse = try String.fetchAll(db, sql: "SELECT heroID FROM membership WHERE player = ?",
                                            arguments: [player.rawValue])
            try PlayerRules.checkPick(chosen, inUse: inUse.map(HeroID.init))
            try db.execute(sql: "DELETE FROM playerHero WHERE player = ?", arguments: [player.rawValue])
            for hero in chosen {
                try db.execute(sql: "INSERT INTO playerHero (player, heroID) VALUES (?, ?)",
                               arguments: [player.rawValue, hero.rawValue])
            }
            return chosen
        }
    }

    public func heroes(of player: PlayerID) async throws -> [HeroID] {
        try await read { db in
            _ = try Self.requirePlayer(player, db)
            return try Self.heroes(of: player, db)
        }
    }

    // MARK: - Shared checks

    static func requirePlayer(_ id: PlayerID, _ db: Database) throws -> PlayerRow {
        guard let row = try PlayerRow.fetchOne(db, key: id.rawValue) else { throw StoreError.unknownPlayer(id) }
        return row
    }

    static func heroes(of player: PlayerID, _ db: Database) throws -> [HeroID] {
        try String.fetchAll(db, sql: "SELECT heroID FROM playerHero WHERE player = ? ORDER BY heroID",
                            arguments: [player.rawValue]).map(HeroID.init)
    }
}
