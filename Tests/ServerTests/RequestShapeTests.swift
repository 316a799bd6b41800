import Foundation
import Hummingbird
import Testing

/// What every route refuses the same way: a missing or wrong key, a body that is
/// not the JSON expected, a body over the limit. Each refusal is the JSON error
/// and leaves the database as it was.
@Suite struct RequestShapeTests {
    @Test func everyRouteHasASampleAndNoSampleIsStale() async throws {
        let served = Set(try await TestServer().router().routes.map { "\($0.method.rawValue) \($0.path)" })
        let sampled = Set(RouteSample.all.map(\.route))
        #expect(served.subtracting(sampled).sorted() == [], "add a RouteSample for each new route")
        #expect(sampled.subtracting(served).sorted() == [])
    }

    @Test func theSamplesAreAcceptedFromTheRightCaller() async throws {
        // Otherwise a refusal in the tests below could come from a broken sample.
        for sample in RouteSample.all {
            let server = try await TestServer()
            try await server.test { api in
                // Starting needs a party with no adventure running; everything else needs one running.
                var fixture = try await Fixture.make(api, startAdventure: !sample.startsAnAdventure)
                if let prepare = sample.prepare { fixture = try await prepare(api, fixture) }
                let reply = try await api.send(sample.method, sample.uri(fixture), key: sample.key(fixture),
                                               body: sample.body?(fixture), headers: sample.headers(fixture))
                #expect(sample.accepted.contains(reply.status), "\(sample): \(reply)")
            }
        }
    }

    @Test func routesThatNeedAKeyRefuseNoneAWrongOneAndTheOtherKind() async throws {
        let server = try await TestServer()
        try await server.test { api in
            let fixture = try await Fixture.make(api)
            for sample in RouteSample.all where sample.caller != .anyone {
                let uri = sample.uri(fixture)
                let body = sample.body?(fixture)
                var wrongKeys: [(String, String?, HTTPFields)] = [
                    ("no key", nil, [:]),
                    ("a made-up player key", "rk_" + String(repeating: "A", count: 43), [:]),
                    ("garbage", "not a key at all", [:]),
                    ("an absurdly long key", String(repeating: "k", count: 20_000), [:]),
                    ("Basic scheme", nil, [.authorization: "Basic \(fixture.ana.key)"]),
                    ("Bearer without a key", nil, [.authorization: "Bearer"]),
                    ("the game master's key with a byte more", TestServer.gameMasterKey + "x", [:]),
                    ("the game master's key with a byte less", String(TestServer.gameMasterKey.dropLast()), [:]),
                ]
                switch sample.caller {
                case .player, .outsider: wrongKeys.append(("the game master's key", TestServer.gameMasterKey, [:]))
                case .gameMaster: wrongKeys.append(("a player's key", fixture.ana.key, [:]))
                case .playerOrGameMaster, .anyone: break
                }
                for (label, key, headers) in wrongKeys {
                    try await expectRefused(server, api, "\(sample) with \(label)", sample.method, uri, key: key, body: body,
                                            headers: headers, status: 401, code: "unauthorized")
                }
            }
        }
    }

    @Test func bodiesThatAreNotAJSONObjectAreMalformed() async throws {
        let server = try await TestServer()
        try await server.test { api in
            let fixture = try await Fixture.make(api)
            let malformed = ["", "{", #"{"name": "x""#, "[]", "null", "42", #""text""#, "not json",
                             "\u{0}{}", #"{"name": "x"} trailing"#]
            for sample in RouteSample.all where sample.takesJSON {
                for body in malformed {
                    try await expectRefused(server, api, "\(sample) with body \(body.debugDescription)", sample.method,
                                            sample.uri(fixture), key: sample.key(fixture), body: body, status: 400,
                                            code: "malformedJSON")
                }
            }
        }
    }

    @Test func anEmptyObjectIsWellFormedAndNamesAMissingField() async throws {
        // Every JSON body has a required field: `{}` is a 422 naming one, not malformed JSON.
        let server = try await TestServer()
        try await server.test { api in
            let fixture = try await Fixture.make(api)
            for sample in RouteSample.all where sample.takesJSON {
                try await expectRefused(server, api, "\(sample) with {}", sample.method, sample.uri(fixture),
                                        key: sample.key(fixture), body: "{}", status: 422, code: "invalidField")
            }
        }
    }

    @Test func bodiesOverTheLimitAreRefusedWith413() async throws {
        let server = try await TestServer()
        try await server.test { api in
            let fixture = try await Fixture.make(api)
            for sample in RouteSample.all where sample.takesJSON {
                // A valid body padded with an unknown field: only its size is wrong.
                let valid = sample.body!(fixture)
                let padded = "{\"padding\": \"\(String(repeating: "x", count: 70 * 1024))\", " + valid.dropFirst()
                try await expectRefused(server, api, "\(sample) with 70 KiB", sample.method, sample.uri(fixture),
                                        key: sample.key(fixture), body: padded, status: 413, code: "bodyTooLarge")
            }
        }
    }

    @Test func aBodyJustUnderTheLimitIsRead() async throws {
        let server = try await TestServer()
        try await server.test { api in
            let padding = String(repeating: "x", count: 60 * 1024)
            let reply = try await api.send(.post, "/v1/players", body: #"{"padding": "\#(padding)", "name": "Big"}"#)
            #expect(reply.status == 201, "\(reply)")
        }
    }

    @Test func unknownPathsAnswer404WhateverTheMethod() async throws {
        let server = try await TestServer()
        try await server.test { api in
            for method in [HTTPRequest.Method.get, .post, .put, .delete, .patch, .options, .head] {
                for path in ["/v1/nothing-here", "/v1/players/me/heroes/extra", "/v2/players", "/"] {
                    let reply = try await api.send(method, path, body: method == .post ? "{}" : nil)
                    #expect(reply.status == 404, "\(method) \(path): \(reply)")
                    if method != .head {
                        #expect(reply.errorCode == "notFound", "\(method) \(path): \(reply)")
                    }
                }
            }
            try await expectRefused(server, api, "unknown path", .get, "/v1/nothing-here", key: nil, status: 404, code: "notFound")
        }
    }

    @Test func theStoredBytesNoticeAnyWrite() async throws {
        // The "nothing stored changed" checks above rely on this.
        let server = try await TestServer()
        try await server.test { api in
            let before = try server.storedBytes()
            #expect(try await api.send(.post, "/v1/players", body: #"{"name": "Ana"}"#).status == 201)
            let changed = try server.storedBytes() != before
            #expect(changed)
            let afterOne = try server.storedBytes()
            #expect(try await api.send(.get, "/healthz").status == 200)
            #expect(try await api.send(.get, "/v1/players/me", key: "rk_unknown").status == 401)
            let unchanged = try server.storedBytes() == afterOne
            #expect(unchanged, "reads and refusals leave the bytes alone")
        }
    }
}
