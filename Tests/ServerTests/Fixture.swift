import Foundation
import Testing

/// A party of three (Ana with Power Panda, Bao with Egghead, Chae with Spouty) on
/// a running adventure with one Live Activity each, plus Olu, who is in none of
/// it: everything a bad-input test needs to aim at, made over the HTTP API.
struct Fixture: Sendable {
    struct Member: Sendable {
        var id: String
        var key: String
        var hero: String
        var activityID: String
        var deviceID: String
    }

    var members: [Member]
    var outsider: Member
    var partyID: String
    var inviteCode: String
    var adventureID: String
    /// The adventure is followable: what players outside the party follow it with.
    var followCode = ""
    /// Set by samples that record a walkie-talkie message first.
    var transmissionID = ""
    /// Set by samples that ask for a live-page link first.
    var liveLinkToken = ""
    /// Set by samples that open the console first: the Cookie header its browser
    /// sends and the CSRF token of its last page.
    var consoleCookie = ""
    var consoleCSRF = ""

    var ana: Member { members[0] }
    var bao: Member { members[1] }
    var chae: Member { members[2] }

    static let heroes = ["power-panda", "egghead", "spouty"]
    static let route = "whispering-woods"

    /// `tokens` shifts every token the fixture registers, so two fixtures can share a simulator.
    static func make(_ api: API, startAdventure: Bool = true, tokens: Int = 0) async throws -> Fixture {
        var members: [Member] = []
        for (index, (name, hero)) in zip(["Ana", "Bao", "Chae", "Olu"], heroes + ["cake"]).enumerated() {
            let created = try await api.send(.post, "/v1/players", body: #"{"name": \#(quoted(name))}"#)
            try #require(created.status == 201, "\(created)")
            let id = try #require(created.json["player"]["id"].string)
            let key = try #require(created.json["apiKey"].string)
            let picked = try await api.send(.put, "/v1/players/me/heroes", key: key, body: #"{"heroes": ["\#(hero)"]}"#)
            try #require(picked.status == 200, "\(picked)")
            let suffix = name.lowercased() + (tokens == 0 ? "" : "-\(tokens)")
            members.append(Member(id: id, key: key, hero: hero, activityID: "activity-\(suffix)", deviceID: "device-\(suffix)"))
            let device = try await api.send(.put, "/v1/devices/device-\(suffix)/push-to-start-token", key: key,
                                            body: #"{"pushToken": "\#(token(tokens + 100 + index))", "locale": "en-US"}"#)
            try #require(device.status == 200, "\(device)")
        }
        let party = try await api.send(.post, "/v1/parties", key: members[0].key,
                                       body: #"{"name": "Rangers", "hero": "power-panda"}"#)
        try #require(party.status == 201, "\(party)")
        let partyID = try #require(party.json["id"].string)
        let code = try #require(party.json["inviteCode"].string)
        for member in members[1...2] {
            let joined = try await api.send(.post, "/v1/parties/join", key: member.key,
                                            body: #"{"inviteCode": "\#(code)", "hero": "\#(member.hero)"}"#)
            try #require(joined.status == 200, "\(joined)")
        }
        var fixture = Fixture(members: Array(members[0...2]), outsider: members[3], partyID: partyID, inviteCode: code,
                              adventureID: "")
        guard startAdventure else { return fixture }
        let started = try await api.send(.post, "/v1/gm/adventures", key: TestServer.gameMasterKey,
                                         body: #"{"partyID": "\#(partyID)", "route": "\#(route)", "tickInterval": 2, "seed": 7, "followable": true}"#)
        try #require(started.status == 201, "\(started)")
        fixture.adventureID = try #require(started.json["id"].string)
        fixture.followCode = try #require(started.json["followCode"].string)
        for (index, member) in fixture.members.enumerated() {
            let registered = try await api.send(
                .post, "/v1/adventures/\(fixture.adventureID)/activities", key: member.key,
                body: #"{"activityID": "\#(member.activityID)", "pushToken": "\#(token(tokens + index))", "hero": "\#(member.hero)", "frequentPushesEnabled": false, "locale": "en"}"#)
            try #require(registered.status == 201, "\(registered)")
        }
        return fixture
    }
}
