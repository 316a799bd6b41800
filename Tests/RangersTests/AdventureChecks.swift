import Catalog
import Foundation
import Game
import Store
import Testing
import Vocabulary

/// What the process tests do to an adventure over HTTP, and check of it in the store.
enum AdventureChecks {
    static let heroes = ["power-panda", "egghead", "spouty"]

    /// Three players, their party, an adventure (one tick a second for
    /// `timeLimit` seconds) and a Live Activity each, all through `api`.
    /// Returns the adventure's id and the players' keys.
    static func start(through api: HTTP, gameMasterKey: String, label: String, seed: Int,
                      timeLimit: Int) async throws -> (id: String, keys: [String]) {
        var keys: [String] = []
        for (name, hero) in zip(["Ana", "Bao", "Chae"], heroes) {
            let player = try await api.json("POST", "/v1/players", body: ["name": "\(name) \(label)"])
            let key = try #require(player["apiKey"] as? String)
            _ = try await api.json("PUT", "/v1/players/me/heroes", key: key, body: ["heroes": [hero]])
            keys.append(key)
        }
        let party = try await api.json("POST", "/v1/parties", key: keys[0], body: ["name": "Party \(label)", "hero": heroes[0]])
        let partyID = try #require(party["id"] as? String)
        for (key, hero) in zip(keys[1...], heroes[1...]) {
            _ = try await api.json("POST", "/v1/parties/join", key: key, body: ["inviteCode": party["inviteCode"]!, "hero": hero])
        }
        let started = try await api.json("POST", "/v1/gm/adventures", key: gameMasterKey, body: [
            "partyID": partyID, "route": "whispering-woods", "tickInterval": 1, "timeLimit": timeLimit, "seed": seed,
        ])
        let id = try #require(started["id"] as? String)
        for (index, (key, hero)) in zip(keys, heroes).enumerated() {
            _ = try await api.json("POST", "/v1/adventures/\(id)/activities", key: key, body: [
                "activityID": "\(label)-activity-\(index)", "pushToken": String(format: "%02x", seed % 256) + String(repeating: "c\(index)", count: 31),
                "hero": hero, "frequentPushesEnabled": index == 0, "locale": "en-US",
            ])
        }
        return (id, keys)
    }

    /// The stored event log equals a run of the same setup with the same
    /// commands at the ticks they were applied, never interrupted; and every push
    /// decided was sent, or superseded by a newer one to the same target that was.
    static func expectPlayedAsIfUninterrupted(_ id: AdventureID, in store: any RangersStore,
                                              sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let final = try await store.adventure(id)
        #expect(final.status != .running, "\(id) still running", sourceLocation: sourceLocation)
        let events = try await store.events(of: id)
        let commands = try await store.commands(of: id)
        let adventure = try Adventure(setup: final.setup, content: content.game)
        var uninterrupted: [String] = []
        let finalState = adventure.playToEnd(commands: commands) { state, tickEvents in
            uninterrupted += tickEvents.enumerated().map { "\(state.tick).\($0.offset) \($0.element)" }
        }
        #expect(events.map { "\($0.tick).\($0.position) \($0.event)" } == uninterrupted, "\(id)", sourceLocation: sourceLocation)
        #expect(final.state == finalState && final.lastTick == finalState.tick, "\(id)", sourceLocation: sourceLocation)

        let outbox = try await store.outbox(of: id)
        #expect(outbox.count { $0.message.isEnd && $0.state == .sent } == 3, "\(id): an end to each activity",
                sourceLocation: sourceLocation)
        for entry in outbox where entry.state != .sent {
            #expect(entry.state == .superseded && outbox.contains {
                $0.message.target == entry.message.target && $0.id > entry.id && $0.state == .sent
            }, "\(id): \(entry.id) \(entry.state) \(entry.outcome ?? "")", sourceLocation: sourceLocation)
        }
    }

    static let content = try! LoadedContent.load(from: RangersProcess.repositoryRoot.appendingPathComponent("Content"))
}
