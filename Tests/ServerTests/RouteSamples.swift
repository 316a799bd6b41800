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
        /// A player outside the party (a follower).
        case outsider
    }

    var method: HTTPRequest.Method
    var template: String
    var caller: Caller
    var uri: @Sendable (Fixture) -> String
    var body: (@Sendable (Fixture) -> String)?
    /// A body that is not JSON (audio): left out of the JSON body tests.
    var contentType: String?
    /// What must happen first for the sample to be accepted (join the channel, say).
    var prepare: (@Sendable (API, Fixture) async throws -> Fixture)?
    /// A console page: the browser's cookies go with it, and a form is answered
    /// with a redirect (303), not a 2xx.
    var isConsole = false

    init(method: HTTPRequest.Method, template: String, caller: Caller, uri: @escaping @Sendable (Fixture) -> String,
         body: (@Sendable (Fixture) -> String)? = nil, contentType: String? = nil,
         prepare: (@Sendable (API, Fixture) async throws -> Fixture)? = nil) {
        self.method = method
        self.template = template
        self.caller = caller
        self.uri = uri
        self.body = body
        self.contentType = contentType
        self.prepare = prepare
    }

    /// A console page or form, from a browser that `prepare` readied.
    static func console(_ method: HTTPRequest.Method, _ path: String, body: (@Sendable (Fixture) -> String)? = nil,
                        prepare: @escaping @Sendable (API, Fixture) async throws -> Fixture) -> RouteSample {
        var sample = RouteSample(method: method, template: path, caller: .anyone, uri: { _ in path }, body: body,
                                 contentType: body == nil ? nil : "application/x-www-form-urlencoded", prepare: prepare)
        sample.isConsole = true
        return sample
    }

    /// The same sample at another address (one with a path parameter).
    func at(_ uri: @escaping @Sendable (Fixture) -> String) -> RouteSample {
        var sample = self
        sample.uri = uri
        return sample
    }

    /// The headers besides the key: the body's type, a console browser's cookies.
    func headers(_ fixture: Fixture) -> HTTPFields {
        var headers: HTTPFields = contentType.map { [.contentType: $0] } ?? [:]
        if isConsole, !fixture.consoleCookie.isEmpty { headers[.cookie] = fixture.consoleCookie }
        return headers
    }

    /// A status that, for this sample, says it was accepted.
    var alsoAccepted: Set<Int> = []

    /// The statuses that say the sample was accepted.
    var accepted: Set<Int> { Set<Int>(isConsole && method == .post ? [303] : [200, 201, 202, 204]).union(alsoAccepted) }

    func accepting(_ status: Int) -> RouteSample {
        var sample = self
        sample.alsoAccepted.insert(status)
        return sample
    }

    /// Starts an adventure: the fixture's party must have none running.
    var startsAnAdventure: Bool { ["POST /v1/gm/adventures", "POST /console/parties/{partyID}/adventures"].contains(route) }

    /// Has a JSON body the shape tests can break.
    var takesJSON: Bool { body != nil && contentType == nil }

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
        RouteSample(method: .post, template: "/v1/adventures/{adventureID}/followers", caller: .outsider,
                    uri: { "/v1/adventures/\($0.adventureID)/followers" },
                    body: { #"{"followCode": "\#($0.followCode)", "locale": "en-GB", "deviceID": "\#($0.outsider.deviceID)"}"# }),
        RouteSample(method: .delete, template: "/v1/adventures/{adventureID}/followers/me", caller: .outsider,
                    uri: { "/v1/adventures/\($0.adventureID)/followers/me" }, prepare: follow),
        RouteSample(method: .get, template: "/v1/adventures/{adventureID}", caller: .playerOrGameMaster,
                    uri: { "/v1/adventures/\($0.adventureID)" }),
        RouteSample(method: .get, template: "/v1/adventures/{adventureID}/events", caller: .playerOrGameMaster,
                    uri: { "/v1/adventures/\($0.adventureID)/events" }),
        RouteSample(method: .get, template: "/v1/adventures/{adventureID}/pushes", caller: .playerOrGameMaster,
                    uri: { "/v1/adventures/\($0.adventureID)/pushes" }),
        RouteSample(method: .get, template: "/v1/parties/{partyID}/channel", caller: .player,
                    uri: { "/v1/parties/\($0.partyID)/channel" }),
        RouteSample(method: .put, template: "/v1/parties/{partyID}/channel/members/me", caller: .player,
                    uri: { "/v1/parties/\($0.partyID)/channel/members/me" }, body: { _ in #"{"pushToken": "\#(token(53))"}"# }),
        RouteSample(method: .delete, template: "/v1/parties/{partyID}/channel/members/me", caller: .player,
                    uri: { "/v1/parties/\($0.partyID)/channel/members/me" }, prepare: joinChannel),
        RouteSample(method: .post, template: "/v1/parties/{partyID}/channel/transmissions", caller: .player,
                    uri: { "/v1/parties/\($0.partyID)/channel/transmissions?durationMilliseconds=800" },
                    body: { _ in "RIFF sample audio" }, contentType: "audio/wav", prepare: joinChannel),
        RouteSample(method: .get, template: "/v1/parties/{partyID}/channel/transmissions/{transmissionID}", caller: .player,
                    uri: { "/v1/parties/\($0.partyID)/channel/transmissions/\($0.transmissionID.isEmpty ? "none" : $0.transmissionID)" },
                    prepare: talk),
        RouteSample(method: .get, template: "/v1/push-to-talk/status", caller: .playerOrGameMaster,
                    uri: { _ in "/v1/push-to-talk/status" }),
        RouteSample(method: .post, template: "/v1/gm/parties/{partyID}/channel/close", caller: .gameMaster,
                    uri: { "/v1/gm/parties/\($0.partyID)/channel/close" }),
        RouteSample(method: .post, template: "/v1/adventures/{adventureID}/live-links", caller: .playerOrGameMaster,
                    uri: { "/v1/adventures/\($0.adventureID)/live-links" }),
        // The page and its stream take the link's token, not a key.
        RouteSample(method: .get, template: "/live/adventures/{adventureID}", caller: .anyone,
                    uri: { "/live/adventures/\($0.adventureID)?token=\($0.liveLinkToken)" }, prepare: askForLiveLink),
        RouteSample(method: .get, template: "/live/adventures/{adventureID}/events", caller: .anyone,
                    uri: { "/live/adventures/\($0.adventureID)/events?token=\($0.liveLinkToken)&follow=false" },
                    prepare: askForLiveLink),
        // The console: a browser's session (a cookie), and a CSRF token in each form.
        .console(.get, "/console", prepare: signInToConsole),
        .console(.post, "/console/sign-in", body: { "key=\(TestServer.gameMasterKey)&csrf=\($0.consoleCSRF)" }, prepare: openConsole),
        .console(.post, "/console/sign-out", body: { "csrf=\($0.consoleCSRF)" }, prepare: signInToConsole),
        .console(.get, "/console/audit", prepare: signInToConsole),
        .console(.get, "/console/parties", prepare: signInToConsole),
        RouteSample.console(.get, "/console/parties/{partyID}", prepare: signInToConsole).at { "/console/parties/\($0.partyID)" },
        RouteSample.console(.post, "/console/parties/{partyID}/adventures",
                            body: { "csrf=\($0.consoleCSRF)&route=whispering-woods&tickInterval=2&seed=7" },
                            prepare: signInToConsole).at { "/console/parties/\($0.partyID)/adventures" },
        RouteSample.console(.post, "/console/parties/{partyID}/walkie-talkie/close", body: { "csrf=\($0.consoleCSRF)" },
                            prepare: signInToConsole).at { "/console/parties/\($0.partyID)/walkie-talkie/close" },
        .console(.get, "/console/adventures", prepare: signInToConsole),
        RouteSample.console(.get, "/console/adventures/{adventureID}", prepare: signInToConsole).at { "/console/adventures/\($0.adventureID)" },
        RouteSample.console(.get, "/console/adventures/{adventureID}/end", prepare: signInToConsole)
            .at { "/console/adventures/\($0.adventureID)/end" },
        RouteSample.console(.post, "/console/adventures/{adventureID}/end", body: { "csrf=\($0.consoleCSRF)&confirm=yes" },
                            prepare: signInToConsole).at { "/console/adventures/\($0.adventureID)/end" },
        .console(.get, "/console/finished", prepare: signInToConsole),
        .console(.get, "/console/delivery", prepare: signInToConsole),
        // The fixture's adventure is running: these answer 409 there, and are accepted in ConsoleFinishedTests.
        RouteSample.console(.get, "/console/adventures/{adventureID}/replay", prepare: signInToConsole)
            .at { "/console/adventures/\($0.adventureID)/replay" }.accepting(409),
        RouteSample.console(.get, "/console/adventures/{adventureID}/timeline", prepare: signInToConsole)
            .at { "/console/adventures/\($0.adventureID)/timeline" }.accepting(409),
        RouteSample.console(.get, "/console/adventures/{adventureID}/session", prepare: signInToConsole)
            .at { "/console/adventures/\($0.adventureID)/session" }.accepting(409),
        RouteSample(method: .get, template: "/healthz", caller: .anyone, uri: { _ in "/healthz" }),
        RouteSample(method: .get, template: "/readyz", caller: .anyone, uri: { _ in "/readyz" }),
        RouteSample(method: .get, template: "/metrics", caller: .anyone, uri: { _ in "/metrics" }),
        RouteSample(method: .get, template: "/openapi.yaml", caller: .anyone, uri: { _ in "/openapi.yaml" }),
    ]

    /// Ana joins the party's channel.
    static func joinChannel(_ api: API, _ fixture: Fixture) async throws -> Fixture {
        let joined = try await api.send(.put, "/v1/parties/\(fixture.partyID)/channel/members/me", key: fixture.ana.key,
                                        body: #"{"pushToken": "\#(token(54))"}"#)
        try #require(joined.status == 200, "\(joined)")
        return fixture
    }

    /// Olu follows the adventure per token.
    static func follow(_ api: API, _ fixture: Fixture) async throws -> Fixture {
        let followed = try await api.send(.post, "/v1/adventures/\(fixture.adventureID)/followers", key: fixture.outsider.key,
                                          body: #"{"followCode": "\#(fixture.followCode)", "locale": "en", "deviceID": "\#(fixture.outsider.deviceID)"}"#)
        try #require(followed.status == 201, "\(followed)")
        return fixture
    }

    /// Ana joins and says something.
    static func talk(_ api: API, _ fixture: Fixture) async throws -> Fixture {
        var fixture = try await joinChannel(api, fixture)
        let said = try await api.send(.post, "/v1/parties/\(fixture.partyID)/channel/transmissions?durationMilliseconds=500",
                                      key: fixture.ana.key, body: "RIFF sample audio", headers: [.contentType: "audio/wav"])
        fixture.transmissionID = try #require(said.json["id"].string, "\(said)")
        return fixture
    }

    /// The game master asks for a link to the adventure's live page.
    static func askForLiveLink(_ api: API, _ fixture: Fixture) async throws -> Fixture {
        var fixture = fixture
        let link = try await api.send(.post, "/v1/adventures/\(fixture.adventureID)/live-links", key: TestServer.gameMasterKey)
        fixture.liveLinkToken = String(try #require(link.json["path"].string?.split(separator: "=").last, "\(link)"))
        return fixture
    }

    /// A browser opens the console's sign-in form.
    static func openConsole(_ api: API, _ fixture: Fixture) async throws -> Fixture {
        var fixture = fixture
        var browser = ConsoleBrowser()
        _ = try await browser.get(api, "/console")
        fixture.consoleCookie = browser.cookieHeader[.cookie] ?? ""
        fixture.consoleCSRF = browser.csrf
        return fixture
    }

    /// A browser signs in to the console with the game master's key.
    static func signInToConsole(_ api: API, _ fixture: Fixture) async throws -> Fixture {
        var fixture = fixture
        var browser = ConsoleBrowser()
        let signedIn = try await browser.signIn(api, key: TestServer.gameMasterKey)
        try #require(signedIn.status == 303, "\(signedIn)")
        _ = try await browser.get(api, "/console")
        fixture.consoleCookie = browser.cookieHeader[.cookie] ?? ""
        fixture.consoleCSRF = browser.csrf
        return fixture
    }

    /// The key the sample's rightful caller presents.
    func key(_ fixture: Fixture) -> String? {
        switch caller {
        case .anyone: nil
        case .player, .playerOrGameMaster: fixture.ana.key
        case .outsider: fixture.outsider.key
        case .gameMaster: TestServer.gameMasterKey
        }
    }
}

/// Sends a request that must be refused and checks the refusal: the status, the
/// uniform JSON error (with `code` when given, and the `field` it names when
/// given; a 422 always names one), and that nothing stored changed.
func expectRefused(
    _ server: TestServer, _ api: API, _ label: String, _ method: HTTPRequest.Method, _ uri: String,
    key: String?, body: String? = nil, headers: HTTPFields = [:], status: Int, code: String? = nil,
    field: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let before = try server.storedBytes()
    let reply = try await api.send(method, uri, key: key, body: body, headers: headers)
    #expect(reply.status == status, "\(label): \(reply)", sourceLocation: sourceLocation)
    #expect(reply.errorCode != nil, "\(label): not {\"error\", \"message\"}: \(reply)", sourceLocation: sourceLocation)
    if let code {
        #expect(reply.errorCode == code, "\(label): \(reply)", sourceLocation: sourceLocation)
    }
    if let field {
        #expect(reply.errorField == field, "\(label): \(reply)", sourceLocation: sourceLocation)
        #expect(reply.json["message"].string?.contains("'\(field)'") == true, "\(label): the message names the field: \(reply)",
                sourceLocation: sourceLocation)
    } else if status == 422 {
        #expect(reply.errorField != nil, "\(label): a 422 names its field: \(reply)", sourceLocation: sourceLocation)
    }
    if status == 401 {
        #expect(reply.headers[.wwwAuthenticate] == "Bearer", "\(label)", sourceLocation: sourceLocation)
    }
    // A Bool, not the bytes: a failure would otherwise print the whole database.
    let unchanged = try server.storedBytes() == before
    #expect(unchanged, "\(label): something stored changed", sourceLocation: sourceLocation)
}
