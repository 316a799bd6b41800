import Foundation
import Game
import Hummingbird
import Store
import Vocabulary

/// Who is asking. Reads of an adventure are open to its party and to the game
/// master; everything else is for one of the two.
enum Caller: Sendable {
    case player(Player)
    case gameMaster
}

/// Bearer keys: a player's (`rk_…`, checked against the stored hash) or the
/// game master's (from the configuration). Refusals never repeat the key.
struct Authenticator: Sendable {
    let store: any RangersStore
    let gameMasterKey: String

    func player(_ request: Request) async throws -> Player {
        let key = try bearer(request)
        guard let player = try await store.player(authenticatedBy: key) else {
            throw APIError.unauthorized("the key is not a player's key")
        }
        return player
    }

    func gameMaster(_ request: Request) throws {
        guard isGameMasterKey(try bearer(request)) else {
            throw APIError.unauthorized("this needs the game master's key")
        }
    }

    func playerOrGameMaster(_ request: Request) async throws -> Caller {
        let key = try bearer(request)
        if isGameMasterKey(key) { return .gameMaster }
        guard let player = try await store.player(authenticatedBy: key) else {
            throw APIError.unauthorized("the key is neither a player's nor the game master's")
        }
        return .player(player)
    }

    private func bearer(_ request: Request) throws -> String {
        guard let header = request.headers[.authorization] else {
            throw APIError.unauthorized("send 'Authorization: Bearer <key>'")
        }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw APIError.unauthorized("the Authorization header must be 'Bearer <key>'")
        }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }

    func isGameMasterKey(_ presented: String) -> Bool {
        constantTimeEqual(expected: gameMasterKey.utf8, given: presented.utf8)
    }
}
