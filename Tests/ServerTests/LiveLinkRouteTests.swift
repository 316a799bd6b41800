import Foundation
import HTTPTypes
import Hummingbird
import LiveView
import Server
import Testing
import Vocabulary

/// Who gets a link to the live page, and what a link that is missing, forged,
/// expired or for another adventure gets: a refusal that shows nothing.
@Suite struct LiveLinkRouteTests {
    static let secret = "route-tests-live-link-secret-0123456789"

    func withServer(_ body: @escaping @Sendable (API, Fixture, ManualClock) async throws -> Void) async throws {
        let clock = ManualClock(TestServer.startTime)
        let server = try await TestServer(liveLinkSecret: Self.secret, now: { clock.now })
        try await server.test { api in try await body(api, try await Fixture.make(api), clock) }
    }

    func link(_ api: API, _ adventure: String, key: String) async throws -> String {
        let reply = try await api.send(.post, "/v1/adventures/\(adventure)/live-links", key: key)
        try #require(reply.status == 201, "\(reply)")
        return try #require(reply.json["path"].string)
    }

    @Test func theGameMasterAndTheAdventuresMembersGetALinkAndNoOneElse() async throws {
        try await withServer { api, fixture, _ in
            let path = "/v1/adventures/\(fixture.adventureID)/live-links"
            let forGameMaster = try await api.send(.post, path, key: TestServer.gameMasterKey)
            #expect(forGameMaster.status == 201)
            #expect(forGameMaster.json["adventureID"].string == fixture.adventureID)
            #expect(forGameMaster.json["expiresAt"].string == "2026-01-01T01:00:00Z", "an hour unless asked otherwise")
            let page = try #require(forGameMaster.json["path"].string)
            #expect(page.hasPrefix("/live/adventures/\(fixture.adventureID)?token="))
            #expect(forGameMaster.json["url"].string.map { $0.hasSuffix(page) && $0.hasPrefix("http://") } == true)

            let forMember = try await api.send(.post, path, key: fixture.bao.key, body: #"{"expiresInSeconds": 120}"#)
            #expect(forMember.status == 201)
            #expect(forMember.json["expiresAt"].string == "2026-01-01T00:02:00Z")

            let outsider = try await api.send(.post, path, key: fixture.outsider.key)
            #expect(outsider.status == 403 && outsider.errorCode == "forbidden")
            #expect(try await api.send(.post, path).status == 401)
            #expect(try await api.send(.post, "/v1/adventures/no-such-adventure/live-links", key: TestServer.gameMasterKey).status == 404)
            for body in [#"{"expiresInSeconds": 59}"#, #"{"expiresInSeconds": 86401}"#, #"{"expiresInSeconds": "soon"}"#] {
                let refused = try await api.send(.post, path, key: TestServer.gameMasterKey, body: body)
                #expect(refused.status == 422 && refused.json["field"].string == "expiresInSeconds", "\(body): \(refused)")
            }
            let garbled = try await api.send(.post, path, key: TestServer.gameMasterKey, body: "{not json")
            #expect(garbled.status == 400 && garbled.errorCode == "malformedJSON")
        }
    }

    @Test func thePageOpensWithItsLinkAndItsHeadersKeepItToItself() async throws {
        try await withServer { api, fixture, _ in
            let page = try await api.send(.get, try await link(api, fixture.adventureID, key: fixture.ana.key))
            #expect(page.status == 200)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.headers[.contentSecurityPolicy] == LivePage.contentSecurityPolicy)
            #expect(page.headers[.contentSecurityPolicy]?.hasPrefix("default-src 'none'; script-src 'sha256-") == true)
            #expect(page.headers[.cacheControl] == "no-store")
            #expect(page.text.contains(#"data-stream="\#(fixture.adventureID)/events?token="#))
            // Nothing from elsewhere: no script, style, font or image by address.
            for reference in ["https://", "src=", "url(", "@import", "@font-face"] {
                #expect(!page.text.contains(reference), "the page refers to something outside it: \(reference)")
            }
            #expect(page.text.components(separatedBy: "href=").count == 2 && page.text.contains(#"href="data:,""#))
        }
    }

    @Test func aMissingForgedForeignOrExpiredLinkIsRefusedAndShowsNothing() async throws {
        try await withServer { api, fixture, clock in
            // Olu's own party has an adventure of its own.
            let party = try await api.send(.post, "/v1/parties", key: fixture.outsider.key, body: #"{"name": "Solo", "hero": "cake"}"#)
            let solo = try await api.send(.post, "/v1/gm/adventures", key: TestServer.gameMasterKey,
                                          body: #"{"partyID": "\#(party.json["id"].string ?? "")", "route": "whispering-woods", "tickInterval": 2}"#)
            let otherAdventure = try #require(solo.json["id"].string, "\(solo)")
            let valid = try await link(api, fixture.adventureID, key: TestServer.gameMasterKey)
            let token = String(try #require(valid.split(separator: "=", maxSplits: 1).last))
            var tampered = Array(token)
            tampered[tampered.count - 2] = tampered[tampered.count - 2] == "A" ? "B" : "A"
            let anotherServers = LiveLinkSigner(secret: "another-server-secret-0123456789abcdef").token(
                for: LiveLinkGrant(adventure: AdventureID(fixture.adventureID), expiresAt: 2_000_000_000, viewer: .gameMaster))
            let foreign = try await link(api, otherAdventure, key: TestServer.gameMasterKey)
            let foreignToken = String(try #require(foreign.split(separator: "=", maxSplits: 1).last))

            for suffix in ["", "/events"] {
                let base = "/live/adventures/\(fixture.adventureID)\(suffix)"
                let cases: [(String, String, Int)] = [
                    ("no token", base, 401),
                    ("an empty token", base + "?token=", 401),
                    ("a changed signature", base + "?token=" + String(tampered), 401),
                    ("another server's secret", base + "?token=" + anotherServers, 401),
                    ("garbage", base + "?token=abc", 401),
                    ("another adventure's link", base + "?token=" + foreignToken, 403),
                ]
                for (what, uri, status) in cases {
                    let reply = try await api.send(.get, uri)
                    #expect(reply.status == status, "\(what) on \(base): \(reply)")
                    #expect(reply.errorCode != nil, "\(what): the uniform error, not the page")
                    #expect(!reply.text.contains("<html") && !reply.text.contains("event:"), "\(what) shows nothing")
                }
            }
            #expect(try await api.send(.get, valid).status == 200)
            clock.advance(by: 3600)
            for suffix in ["", "/events"] {
                let uri = valid.replacingOccurrences(of: "?token", with: "\(suffix)?token")
                let expired = try await api.send(.get, uri)
                #expect(expired.status == 401, "\(uri): \(expired)")
                #expect(expired.json["message"].string?.contains("expired") == true)
            }
        }
    }

    @Test func theStreamBeginsWithTheAdventureAndEndsWhenItsLinkExpires() async throws {
        try await withServer { api, fixture, clock in
            let page = try await link(api, fixture.adventureID, key: fixture.chae.key)
            let events = page.replacingOccurrences(of: "?token", with: "/events?token")
            let malformed = try await api.send(.get, events, headers: [HTTPField.Name("Last-Event-ID")!: "yesterday"])
            #expect(malformed.status == 422 && malformed.json["field"].string == "lastEventId")

            // The stream would go on until the link expires: move the clock past it meanwhile.
            let expire = Task {
                try await Task.sleep(for: .milliseconds(600))
                clock.advance(by: 3600)
            }
            let stream = try await api.send(.get, events)
            try await expire.value
            #expect(stream.status == 200)
            #expect(stream.headers[.contentType] == "text/event-stream; charset=utf-8")
            #expect(stream.headers[HTTPField.Name("X-Accel-Buffering")!] == "no")
            #expect(stream.text.hasPrefix("retry: 1000\n\nevent: adventure\ndata: {"))
            #expect(stream.text.contains("\nevent: ticks\n"))
            #expect(stream.text.hasSuffix("event: expired\ndata: {\"message\":\"the link expired at 2026-01-01T01:00:00Z; ask for a new one\"}\n\n"))
        }
    }

    @Test func withoutFollowingTheStreamSendsWhatThereIsAndEnds() async throws {
        try await withServer { api, fixture, _ in
            let page = try await link(api, fixture.adventureID, key: TestServer.gameMasterKey)
            let events = page.replacingOccurrences(of: "?token", with: "/events?token")
            let once = try await api.send(.get, events + "&follow=false")
            #expect(once.status == 200)
            #expect(once.text.hasPrefix("retry: 1000\n\nevent: adventure\n"))
            #expect(once.text.contains("\nevent: clock\n"))
            #expect(!once.text.contains("event: expired"))
            let odd = try await api.send(.get, events + "&follow=maybe")
            #expect(odd.status == 422 && odd.json["field"].string == "follow")
        }
    }
}
