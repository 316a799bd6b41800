import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Game
import RangersClient

/// The calls of the HTTP API that `rangers demo` makes, as the app and the game
/// master would make them: through the client generated from the server's OpenAPI
/// document, each with the caller's key.
struct DemoClient: Sendable {
    let serverURL: URL
    private let session: URLSession

    typealias Party = Components.Schemas.Party
    typealias Adventure = Components.Schemas.Adventure
    typealias Following = Components.Schemas.Following
    typealias LiveLink = Components.Schemas.LiveLink
    typealias Push = Components.Schemas.Pushes.PushesPayloadPayload

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(serverURL: URL) {
        self.serverURL = serverURL
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 10
        session = URLSession(configuration: configuration)
    }

    /// As the holder of `key`; nil for the routes open to all.
    private func api(_ key: String?) -> Client { Client(serverURL: serverURL, key: key, session: session) }

    func createPlayer(name: String) async throws -> Components.Schemas.CreatedPlayer {
        try await api(nil).createPlayer(body: .json(.init(name: name))).created.body.json
    }

    func pickHeroes(_ heroes: [HeroID], key: String) async throws {
        _ = try await api(key).pickHeroes(body: .json(.init(heroes: try heroes.map(Self.documented)))).ok
    }

    func createParty(name: String, hero: HeroID, key: String) async throws -> Party {
        try await api(key).createParty(body: .json(.init(name: name, hero: Self.documented(hero)))).created.body.json
    }

    func joinParty(inviteCode: String, hero: HeroID, key: String) async throws {
        _ = try await api(key).joinParty(body: .json(.init(inviteCode: inviteCode, hero: Self.documented(hero)))).ok
    }

    func registerPushToStartToken(device: String, token: String, locale: String, key: String) async throws {
        _ = try await api(key).registerPushToStartToken(path: .init(deviceID: device),
                                                        body: .json(.init(pushToken: token, locale: locale))).ok
    }

    /// Without a hero: a follower's activity.
    func registerActivity(adventure: String, activity: String, token: String, hero: HeroID?, frequentPushes: Bool,
                          locale: String, key: String) async throws {
        let answer = try await api(key).registerActivity(
            path: .init(adventureID: adventure),
            body: .json(.init(activityID: activity, pushToken: token, hero: try hero.map(Self.documented),
                              frequentPushesEnabled: frequentPushes, locale: locale)))
        if case .ok = answer { return }
        _ = try answer.created
    }

    func startAdventure(party: String, route: RouteID, tickInterval: Int, seed: UInt64?, followable: Bool,
                        key: String) async throws -> Adventure {
        guard let documentedRoute = Components.Schemas.RouteID(rawValue: route.rawValue) else {
            throw Failure(description: "the API's document names no route \(route)")
        }
        // The server takes any UInt64; the generated client's integers are Int.
        if let seed, Int(exactly: seed) == nil {
            throw Failure(description: "the demo's client sends seeds up to \(Int.max), not \(seed)")
        }
        let body = Components.Schemas.StartAdventureRequest(partyID: party, route: documentedRoute, tickInterval: tickInterval,
                                                            seed: seed.map { Int($0) }, followable: followable)
        return try await api(key).startAdventure(body: .json(body)).created.body.json
    }

    /// On a broadcast channel (an app on iOS 18), or through the device's push-to-start token.
    func follow(adventure: String, code: String, locale: String, device: String?, key: String) async throws -> Following {
        let request = device.map {
            Components.Schemas.FollowRequest(value2: .init(followCode: code, locale: locale, deviceID: $0))
        } ?? Components.Schemas.FollowRequest(value1: .init(followCode: code, locale: locale, broadcastChannel: true))
        let answer = try await api(key).followAdventure(path: .init(adventureID: adventure), body: .json(request))
        if case .ok(let ok) = answer { return try ok.body.json }
        return try answer.created.body.json
    }

    func usePotion(adventure: String, hero: HeroID, key: String) async throws {
        _ = try await api(key).usePotion(path: .init(adventureID: adventure), body: .json(.init(hero: Self.documented(hero)))).accepted
    }

    func adventure(_ id: String, key: String) async throws -> Adventure {
        try await api(key).getAdventure(path: .init(adventureID: id)).ok.body.json
    }

    /// The event log, each event as the game reads it.
    func events(_ id: String, key: String) async throws -> [(tick: Int, event: GameEvent)] {
        let events = try await api(key).getAdventureEvents(path: .init(adventureID: id)).ok.body.json.events
        // The document types an event by its `type` only; the game reads the whole object.
        return try events.map { ($0.tick, try JSONDecoder().decode(GameEvent.self, from: JSONEncoder().encode($0.event))) }
    }

    func pushes(_ id: String, key: String) async throws -> [Push] {
        try await api(key).getAdventurePushes(path: .init(adventureID: id)).ok.body.json.pushes
    }

    /// A signed link to the adventure's live page, for a browser.
    func liveLink(adventure: String, key: String) async throws -> LiveLink {
        try await api(key).createLiveLink(path: .init(adventureID: adventure)).created.body.json
    }

    /// The game's hero as the document names it.
    private static func documented(_ hero: HeroID) throws -> Components.Schemas.HeroID {
        guard let documented = Components.Schemas.HeroID(rawValue: hero.rawValue) else {
            throw Failure(description: "the API's document names no hero \(hero)")
        }
        return documented
    }
}
