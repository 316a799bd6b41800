import Foundation
import Game
import PostgresNIO
import Store
import Vocabulary

extension PostgresStore {
    public func createPlayer(name: String, at now: Date) async throws -> (player: Player, apiKey: String) {
        let name = try StoredValueLimits.checkedName(name)
        let apiKey = APIKey.generate()
        let id = UUID().uuidString.lowercased()
        let hash = APIKey.hash(apiKey)
        let createdAt = try await transaction { [self] connection in
            try await connection.query("""
                INSERT INTO player (id, name, api_key_hash, created_at) VALUES (\(id), \(name), \(hash), \(now))
                RETURNING created_at
                """, logger: logger).decodeOne(Date.self)
        }
        return (Player(id: PlayerID(id), name: name, createdAt: createdAt), apiKey)
    }

    public func player(authenticatedBy apiKey: String) async throws -> Player? {
        guard let presented = APIKey.hash(ofPresented: apiKey) else { return nil }
        let row = try await query("""
            SELECT id, name, api_key_hash, created_at FROM player WHERE api_key_hash = \(presented)
            """, logger: logger).decodeFirst((String, String, Data, Date).self)
        // The lookup already matched; comparing again in constant time guards
        // against an index that matched on anything less than all 32 bytes.
        guard let (id, name, hash, createdAt) = row, constantTimeEqual(expected: hash, given: presented) else { return nil }
        return Player(id: PlayerID(id), name: name, createdAt: createdAt)
    }

    public func pickHeroes(_ heroes: [HeroID], for player: PlayerID) async throws -> [HeroID] {
        let chosen = try PlayerRules.heroPick(heroes)
        return try await transaction { [self] connection in
            // The player's row lock: a join that checks this player's heroes waits
            // (it takes the row FOR SHARE), so no hero is dropped while it joins with it.
            try await requirePlayer(player, lock: "FOR UPDATE", connection)
            let inUse = try await connection.query("SELECT hero_id FROM membership WHERE player = \(player.rawValue)",
                                                   logger: logger).decodeAll(String.self).map(HeroID.init)
            try PlayerRules.checkPick(chosen, inUse: inUse)
            try await connection.query("DELETE FROM player_hero WHERE player = \(player.rawValue)", logger: logger)
            let ids = chosen.map(\.rawValue)
            try await connection.query("""
                INSERT INTO player_hero (player, hero_id) SELECT \(player.rawValue), unnest(\(ids)::text[])
                """, logger: logger)
            return chosen
        }
    }

    public func heroes(of player: PlayerID) async throws -> [HeroID] {
        try await transaction { [self] connection in
            try await requirePlayer(player, lock: "", connection)
            return try await connection.query("""
                SELECT hero_id FROM player_hero WHERE player = \(player.rawValue) ORDER BY hero_id
                """, logger: logger).decodeAll(String.self).map(HeroID.init)
        }
    }

    /// `lock` is a row-locking clause written here, never input.
    func requirePlayer(_ id: PlayerID, lock: StaticString, _ connection: PostgresConnection) async throws {
        var query = PostgresQuery(unsafeSQL: "SELECT 1 FROM player WHERE id = $1 \(lock)")
        query.binds.append(id.rawValue, context: .default)
        guard try await connection.query(query, logger: logger).decodeFirst(Int32.self) != nil else {
            throw StoreError.unknownPlayer(id)
        }
    }
}

extension PostgresRowSequence {
    func decodeAll<T: PostgresDecodable & Sendable>(_ type: T.Type) async throws -> [T] {
        try await collect().decodeAll(T.self)
    }

    func decodeAll<each Column: PostgresDecodable>(_ types: (repeat each Column).Type) async throws -> [(repeat each Column)] {
        try await collect().decodeAll((repeat each Column).self)
    }

    func decodeFirst<T: PostgresDecodable & Sendable>(_ type: T.Type) async throws -> T? {
        try await collect().decodeFirst(T.self)
    }

    func decodeFirst<each Column: PostgresDecodable>(_ types: (repeat each Column).Type) async throws -> (repeat each Column)? {
        try await collect().decodeFirst((repeat each Column).self)
    }

    /// The one row a statement such as `INSERT … RETURNING` gives.
    func decodeOne<T: PostgresDecodable & Sendable>(_ type: T.Type) async throws -> T {
        try await collect().decodeOne(T.self)
    }
}

extension [PostgresRow] {
    func decodeAll<T: PostgresDecodable & Sendable>(_ type: T.Type) throws -> [T] {
        try map { try $0.decode(T.self) }
    }

    func decodeAll<each Column: PostgresDecodable>(_ types: (repeat each Column).Type) throws -> [(repeat each Column)] {
        try map { try $0.decode((repeat each Column).self) }
    }

    func decodeFirst<T: PostgresDecodable & Sendable>(_ type: T.Type) throws -> T? {
        try first.map { try $0.decode(T.self) }
    }

    func decodeFirst<each Column: PostgresDecodable>(_ types: (repeat each Column).Type) throws -> (repeat each Column)? {
        guard let row = first else { return nil }
        return try row.decode((repeat each Column).self)
    }

    /// The one row a statement such as `INSERT … RETURNING` gives.
    func decodeOne<T: PostgresDecodable & Sendable>(_ type: T.Type) throws -> T {
        guard let value = try decodeFirst(T.self) else { throw StoreError.corrupt("a statement returned no row") }
        return value
    }
}
