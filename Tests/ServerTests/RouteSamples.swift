import Foundation
import Hummingbird
import Testing

/// For every route: who may call it and a well-formed request to it, aimed at the
/// fixture. The auth and body tests go through all of them, and a test holds this
/// list to the router's, so a new route cannot escape those tests.
struct RouteSample: Sendable, CustomStringConvertible {
    enum Caller: Sendable {
        case anyone
        case player
        case gameMaster
        /// Adventure reads: a member of its party, or the game master.
        case playerOrGameMaster
    }

    var method: HTTPRequest.Method
    var template: String
    var caller: Caller
    var uri: @Sendable (Fixture) -> String
    var body: (@Sendable (Fixture) -> String)?

    var route: String { "\(method.rawValue) \(template)" }
    var description: String { route }

    static let all: [RouteSample] = [
        RouteSample(method: .post, template: "/v1/players", caller: .anyone, uri: { _ in "/v1/players" },
                    body: { _ in #"{"name": "Zed"}"# }),
        RouteSample(method: .get, template: "/v1/players/me", caller: .player, uri: { _ in "/v1/players/me" }),
        RouteSample(method: .put, template: "/v1/players/me/heroes", caller: .player, uri: { _ in "/v1/players/me/heroes" },
                    body: { _ in #"{"heroes": ["power-panda", "cake"]}"# }),
        RouteSample(method: .post, template: "/v1/parties", caller: .player, uri: { _ in "/v1/parties" },
                    body: { _ in #"{"name": "Second", "hero": "power-panda"}"# }),
        RouteSample(method: .post, template: "/v1/parties/join", caller: .player, uri: { _ in "/v1/parties/join" },
                    body: { #"{"inviteCode": "\#($0.inviteCode)", "hero": "power-panda"}"# }),
        RouteSample(method: .get, template: "/v1/parties/{partyID}", caller: .player, uri: { "/v1/parties/\($0.partyID)" }),
        RouteSample(method: .delete, template: "/v1/parties/{partyID}/members/me", caller: .player,
                    uri: { "/v1/parties/\($0.partyID)/members/me" }),
        RouteSample(method: .post, template: "/v1/adventures/{adventureID}/activities", caller: .player,
                    uri: { "/v1/adventures/\($0.adventureID)/activities" },
                    body: { _ in #"{"activityID": "new-activity", "pushToken": "\#(token(50))", "hero": "power-panda", "frequentPushesEnabled": true, "locale": "en-GB"}"# }),
        RouteSample(method: .put, template: "/v1/activities/{activityID}/token", caller: .player,
                    uri: { "/v1/activities/\($0.ana.activityID)/token" }, body: { _ in #"{"pushToken": "\#(token(51))"}"# }),
        RouteSample(method: .post, template: "/v1/activities/{activityID}/status", caller: .player,
                    uri: { "/v1/activities/\($0.ana.activityID)/status" }, body: { _ in #"{"status": "dismissed"}"# }),
        RouteSample(method: .put, template: "/v1/devices/{deviceID}/push-to-start-token", caller: .player,
                    uri: { "/v1/devices/\($0.ana.deviceID)/push-to-start-token" },
                    body: { _ in #"{"pushToken": "\#(token(52))", "locale": "ko-KR"}"# }),
        RouteSample(method: .post, template: "/v1/gm/adventures", caller: .gameMaster, uri: { _ in "/v1/gm/adventures" },
                    body: { #"{"partyID": "\#($0.partyID)", "route": "dragon-peak", "tickInterval": 5}"# }),
        RouteSample(method: .get, template: "/v1/gm/adventures", caller: .gameMaster, uri: { _ in "/v1/gm/adventures" }),
        RouteSample(method: .post, template: "/v1/gm/adventures/{adventureID}/end", caller: .gameMaster,
                    uri: { "/v1/gm/adventures/\($0.adventureID)/end" }),
        RouteSample(method: .post, template: "/v1/adventures/{adventureID}/potions", caller: .player,
                    uri: { "/v1/adventures/\($0.adventureID)/potions" }, body: { _ in #"{"hero": "egghead"}"# }),
        RouteSample(method: .get, template: "/v1/adventures/{adventureID}", caller: .playerOrGameMaster,
                    uri: { "/v1/adventures/\($0.adventureID)" }),
        RouteSample(method: .get, template: "/v1/adventures/{adventureID}/events", caller: .playerOrGameMaster,
                    uri: { "/v1/adventures/\($0.adventureID)/events" }),
        RouteSample(method: .get, template: "/v1/adventures/{adventureID}/pushes", caller: .playerOrGameMaster,
                    uri: { "/v1/adventures/\($0.adventureID)/pushes" }),
        RouteSample(method: .get, template: "/healthz", caller: .anyone, uri: { _ in "/healthz" }),
        RouteSample(method: .get, template: "/metrics", caller: .anyone, uri: { _ in "/metrics" }),
        RouteSample(method: .get, template: "/openapi.yaml", caller: .anyone, uri: { _ in "/openapi.yaml" }),
    ]

    /// The key the sample's rightful caller presents.
    func key(_ fixture: Fixture) -> String? {
        switch caller {
        case .anyone: nil
        case .player, .playerOrGameMaster: fixture.ana.key
        case .gameMaster: TestServer.gameMasterKey
        }
    }
}

/// Sends a request that must be refused and checks the refusal: the status, the
/// uniform JSON error (with `code` when given), and that nothing stored changed.
func expectRefused(
    _ server: TestServer, _ api: API, _ label: String, _ method: HTTPRequest.Method, _ uri: String,
    key: String?, body: String? = nil, headers: HTTPFields = [:], status: Int, code: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let before = try server.storedBytes()
    let reply = try await api.send(method, uri, key: key, body: body, headers: headers)
    #expect(reply.status == status, "\(label): \(reply)", sourceLocation: sourceLocation)
    #expect(reply.errorCode != nil, "\(label): not {\"error\", \"message\"}: \(reply)", sourceLocation: sourceLocation)
    if let code {
        #expect(reply.errorCode == code, "\(label): \(reply)", sourceLocation: sourceLocation)
    }
    if status == 401 {
        #expect(reply.headers[.wwwAuthenticate] == "Bearer", "\(label)", sourceLocation: sourceLocation)
    }
    // A Bool, not the bytes: a failure would otherwise print the whole database.
    let unchanged = try server.storedBytes() == before
    #expect(unchanged, "\(label): something stored changed", sourceLocation: sourceLocation)
}
