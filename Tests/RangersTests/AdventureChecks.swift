import Catalog
import Foundation
import Game
import PushPolicy
import RangersClient
import Store
import Testing
import Vocabulary

/// What the process tests do to an adventure over HTTP, and check of it in the store.
enum AdventureChecks {
    static let heroes: [Components.Schemas.HeroID] = [.powerPanda, .egghead, .spouty]

    /// Three players, their party, an adventure (one tick a second for
    /// `timeLimit` seconds) and a Live Activity each, all through `api`.
    /// Returns the adventure's id and the players' keys.
    static func start(through api: ServerAPI, gameMasterKey: String, label: String, seed: Int,
                      timeLimit: Int) async throws -> (id: String, keys: [String]) {
        var keys: [String] = []
        for (name, hero) in zip(["Ana", "Bao", "Chae"], heroes) {
            let player = try await api.client().createPlayer(body: .json(.init(name: "\(name) \(label)"))).created.body.json
            _ = try await api.client(player.apiKey).pickHeroes(body: .json(.init(heroes: [hero]))).ok
            keys.append(player.apiKey)
        }
        let party = try await api.client(keys[0]).createParty(body: .json(.init(name: "Party \(label)", hero: heroes[0])))
            .created.body.json
        for (key, hero) in zip(keys[1...], heroes[1...]) {
            _ = try await api.client(key).joinParty(body: .json(.init(inviteCode: party.inviteCode, hero: hero))).ok
        }
        let started = try await api.client(gameMasterKey).startAdventure(body: .json(.init(
            partyID: party.id, route: .whisperingWoods, tickInterval: 1, timeLimit: timeLimit, seed: seed))).created.body.json
        for (index, (key, hero)) in zip(keys, heroes).enumerated() {
            _ = try await api.client(key).registerActivity(path: .init(adventureID: started.id), body: .json(.init(
                activityID: "\(label)-activity-\(index)", pushToken: String(format: "%02x", seed % 256) + String(repeating: "c\(index)", count: 31),
                hero: hero, frequentPushesEnabled: index == 0, locale: "en-US"))).created
        }
        return (started.id, keys)
    }

    /// A player drinks a potion for `hero` in the adventure `id`.
    static func usePotion(_ id: String, hero: Components.Schemas.HeroID, key: String, through api: ServerAPI) async throws {
        _ = try await api.client(key).usePotion(path: .init(adventureID: id), body: .json(.init(hero: hero))).accepted
    }

    /// A signed link to the adventure's live page, as `key`'s holder asks for it.
    static func liveLink(_ id: String, key: String, through api: ServerAPI) async throws -> Components.Schemas.LiveLink {
        try await api.client(key).createLiveLink(path: .init(adventureID: id)).created.body.json
    }

    /// The stored event log equals a run of the same setup with the same
    /// commands at the ticks they were applied, never interrupted; and every push
    /// decided was sent, or superseded by a newer one to the same target that was.
    /// `expiring`: pushes may also have been dropped for expiring while they could
    /// not be sent (a database away for longer than a routine update is worth).
    static func expectPlayedAsIfUninterrupted(_ id: AdventureID, in store: any RangersStore, expiring: Bool = false,
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
            if expiring, entry.state == .dropped, entry.outcome == QueuedPushRules.expiredReason { continue }
            #expect(entry.state == .superseded && outbox.contains {
                $0.message.target == entry.message.target && $0.id > entry.id && $0.state == .sent
            }, "\(id): \(entry.id) \(entry.state) \(entry.outcome ?? "")", sourceLocation: sourceLocation)
        }
    }

    static let content = try! LoadedContent.load(from: RangersProcess.repositoryRoot.appendingPathComponent("Content"))
}
