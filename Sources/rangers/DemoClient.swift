import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Game

/// The few calls of the HTTP API that `rangers demo` makes, as the app and the game
/// master would make them: JSON over HTTP with a bearer key.
struct DemoClient: Sendable {
    let baseURL: URL
    private let session: URLSession

    init(baseURL: URL) {
        self.baseURL = baseURL
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 10
        session = URLSession(configuration: configuration)
    }

    struct CreatedPlayer: Decodable {
        struct Player: Decodable { var id: String }
        var player: Player
        var apiKey: String
    }

    struct Party: Decodable {
        var id: String
        var inviteCode: String
    }

    struct Adventure: Decodable {
        struct State: Decodable {
            struct Boss: Decodable {
                var boss: String
                var health: Int
                var maxHealth: Int
            }
            struct Hero: Decodable {
                var hero: String
                var health: Int
                var maxHealth: Int
                var knockedDown: Bool
            }
            var tick: Int
            var boss: Boss
            var heroes: [Hero]
            var potions: Int
        }
        var id: String
        var status: String
        var lastTick: Int
        var followCode: String?
        var state: State
    }

    struct Following: Decodable {
        struct Channel: Decodable { var id: String }
        var delivery: String
        var language: String
        var channel: Channel?
    }

    struct Events: Decodable {
        struct Entry: Decodable {
            var tick: Int
            var event: GameEvent
        }
        var events: [Entry]
    }

    struct Pushes: Decodable {
        struct Entry: Decodable {
            var outboxID: Int64
            var targetKind: String
            var targetID: String
            var priority: Int
            var status: Int?
            var reason: String?
            /// For a broadcast, its `apns-request-id`.
            var apnsID: String?
            var tick: Int?
            var why: String
            var event: String?
            var alert: String?
            var sound: String?
        }
        var pushes: [Entry]
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    func createPlayer(name: String) async throws -> CreatedPlayer {
        try await call("POST", "/v1/players", body: ["name": name])
    }

    func pickHeroes(_ heroes: [HeroID], key: String) async throws {
        let _: Ignored = try await call("PUT", "/v1/players/me/heroes", key: key, body: ["heroes": heroes.map(\.rawValue)])
    }

    func createParty(name: String, hero: HeroID, key: String) async throws -> Party {
        try await call("POST", "/v1/parties", key: key, body: ["name": name, "hero": hero.rawValue])
    }

    func joinParty(inviteCode: String, hero: HeroID, key: String) async throws {
        let _: Ignored = try await call("POST", "/v1/parties/join", key: key,
                                        body: ["inviteCode": inviteCode, "hero": hero.rawValue])
    }

    func registerPushToStartToken(device: String, token: String, locale: String, key: String) async throws {
        let _: Ignored = try await call("PUT", "/v1/devices/\(device)/push-to-start-token", key: key,
                                        body: ["pushToken": token, "locale": locale])
    }

    /// Without a hero: a follower's activity.
    func registerActivity(adventure: String, activity: String, token: String, hero: HeroID?, frequentPushes: Bool,
                          locale: String, key: String) async throws {
        var body: [String: Any] = ["activityID": activity, "pushToken": token, "frequentPushesEnabled": frequentPushes,
                                   "locale": locale]
        if let hero { body["hero"] = hero.rawValue }
        let _: Ignored = try await call("POST", "/v1/adventures/\(adventure)/activities", key: key, body: body)
    }

    func startAdventure(party: String, route: RouteID, tickInterval: Int, seed: UInt64?, followable: Bool,
                        key: String) async throws -> Adventure {
        var body: [String: Any] = ["partyID": party, "route": route.rawValue, "tickInterval": tickInterval,
                                   "followable": followable]
        if let seed { body["seed"] = seed }
        return try await call("POST", "/v1/gm/adventures", key: key, body: body)
    }

    /// On a broadcast channel (an app on iOS 18), or through the device's push-to-start token.
    func follow(adventure: String, code: String, locale: String, device: String?, key: String) async throws -> Following {
        var body: [String: Any] = ["followCode": code, "locale": locale]
        if let device { body["deviceID"] = device } else { body["broadcastChannel"] = true }
        return try await call("POST", "/v1/adventures/\(adventure)/followers", key: key, body: body)
    }

    func usePotion(adventure: String, hero: HeroID, key: String) async throws {
        let _: Ignored = try await call("POST", "/v1/adventures/\(adventure)/potions", key: key, body: ["hero": hero.rawValue])
    }

    func adventure(_ id: String, key: String) async throws -> Adventure {
        try await call("GET", "/v1/adventures/\(id)", key: key)
    }

    func events(_ id: String, key: String) async throws -> [Events.Entry] {
        let events: Events = try await call("GET", "/v1/adventures/\(id)/events", key: key)
        return events.events
    }

    func pushes(_ id: String, key: String) async throws -> [Pushes.Entry] {
        let pushes: Pushes = try await call("GET", "/v1/adventures/\(id)/pushes", key: key)
        return pushes.pushes
    }

    /// A signed link to the adventure's live page, for a browser.
    struct LiveLink: Decodable {
        var url: String
        var expiresAt: Date
    }

    func liveLink(adventure: String, key: String) async throws -> LiveLink {
        try await call("POST", "/v1/adventures/\(adventure)/live-links", key: key)
    }

    private struct Ignored: Decodable {}

    private func call<Answer: Decodable>(_ method: String, _ path: String, key: String? = nil,
                                         body: [String: Any]? = nil) async throws -> Answer {
        var request = URLRequest(url: baseURL.appendingPathComponent(path))
        request.httpMethod = method
        if let key { request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
        }
        let (data, response) = try await session.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            throw Failure(description: "\(method) \(path) answered \(status): \(String(decoding: data.prefix(500), as: UTF8.self))")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(Answer.self, from: data)
    }
}
