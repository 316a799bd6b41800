import Foundation
import Hummingbird
import Testing

/// Route by route: values out of range, wrong types, someone else's things and
/// unknown ids for players, parties and tokens. Each refusal changes nothing stored.
@Suite struct PlayerAndPartyRefusalTests {
    @Test func creatingAPlayer() async throws {
        let server = try await TestServer()
        try await server.test { api in
            let cases: [(String, String)] = [
                ("name a number", #"{"name": 5}"#),
                ("name missing", #"{"nom": "Ana"}"#),
                ("name null", #"{"name": null}"#),
                ("name empty", #"{"name": ""}"#),
                ("name blank", #"{"name": "   "}"#),
                ("name of Unicode spaces only", #"{"name": "\u00a0\u2003\u3000"}"#),
                ("name 65 characters", #"{"name": "\#(String(repeating: "n", count: 65))"}"#),
                ("name of 65 code points that look like 33", #"{"name": "\#(String(repeating: "e\u{301}", count: 32))x"}"#),
                ("name 10,000 characters", #"{"name": "\#(String(repeating: "n", count: 10_000))"}"#),
                ("name with a control character", #"{"name": "An\u0007a"}"#),
                ("name ending in a line feed", #"{"name": "Ana\n"}"#),
                ("name with a C1 control character", #"{"name": "An\u0085a"}"#),
            ]
            for (label, body) in cases {
                try await expectRefused(server, api, label, .post, "/v1/players", key: nil, body: body, status: 422,
                                        code: "invalidField", field: "name")
            }
        }
    }

    @Test func pickingHeroes() async throws {
        let server = try await TestServer()
        try await server.test { api in
            let fixture = try await Fixture.make(api)
            let uri = "/v1/players/me/heroes"
            let tooMany = Array(repeating: #""cake""#, count: 33).joined(separator: ", ")
            let cases: [(String, String, Int, String, String?)] = [
                ("a string, not a list", #"{"heroes": "cake"}"#, 422, "invalidField", "heroes"),
                ("numbers", #"{"heroes": [1, 2]}"#, 422, "invalidField", "heroes[0]"),
                ("none", #"{"heroes": []}"#, 422, "invalidField", "heroes"),
                ("an unknown hero", #"{"heroes": ["cake", "unicorn"]}"#, 422, "invalidField", "heroes[1]"),
                ("an empty hero id", #"{"heroes": ["cake", "egghead", ""]}"#, 422, "invalidField", "heroes[2]"),
                ("33 heroes", #"{"heroes": [\#(tooMany)]}"#, 422, "invalidField", "heroes"),
                // Power Panda plays in Ana's party: it cannot be dropped while she is in it.
                ("dropping a hero in a party", #"{"heroes": ["cake"]}"#, 409, "conflict", nil),
            ]
            for (label, body, status, code, field) in cases {
                try await expectRefused(server, api, label, .put, uri, key: fixture.ana.key, body: body, status: status, code: code,
                                        field: field)
            }
        }
    }

    @Test func creatingAParty() async throws {
        let server = try await TestServer()
        try await server.test { api in
            let fixture = try await Fixture.make(api)
            let cases: [(String, String, Int, String, String?)] = [
                ("hero a number", #"{"name": "P", "hero": 7}"#, 422, "invalidField", "hero"),
                ("hero missing", #"{"name": "P"}"#, 422, "invalidField", "hero"),
                ("empty name", #"{"name": "", "hero": "power-panda"}"#, 422, "invalidField", "name"),
                ("a name with a tab", #"{"name": "Ranger\tParty", "hero": "power-panda"}"#, 422, "invalidField", "name"),
                ("a hero not picked", #"{"name": "P", "hero": "cake"}"#, 403, "forbidden", nil),
                ("an unknown hero", #"{"name": "P", "hero": "unicorn"}"#, 422, "invalidField", "hero"),
            ]
            for (label, body, status, code, field) in cases {
                try await expectRefused(server, api, label, .post, "/v1/parties", key: fixture.ana.key, body: body,
                                        status: status, code: code, field: field)
            }
        }
    }

    @Test func joiningAParty() async throws {
        let server = try await TestServer()
        try await server.test { api in
            let fixture = try await Fixture.make(api)
            let unknownCode = fixture.inviteCode == "22222222" ? "33333333" : "22222222"
            let olu = fixture.outsider
            let cases: [(String, String, Int, String, String?)] = [
                ("code a number", #"{"inviteCode": 22222222, "hero": "cake"}"#, 422, "invalidField", "inviteCode"),
                ("an unknown code", #"{"inviteCode": "\#(unknownCode)", "hero": "cake"}"#, 404, "notFound", nil),
                ("not a code at all", #"{"inviteCode": "hello world!", "hero": "cake"}"#, 422, "invalidField", "inviteCode"),
                ("an absurd code", #"{"inviteCode": "\#(String(repeating: "A", count: 5000))", "hero": "cake"}"#,
                 422, "invalidField", "inviteCode"),
                // Uppercased, ß would be SS: a code's letters are ASCII only, as the document's pattern says.
                ("eight ß", #"{"inviteCode": "ßßßß", "hero": "cake"}"#, 422, "invalidField", "inviteCode"),
                ("an unknown hero", #"{"inviteCode": "\#(fixture.inviteCode)", "hero": "unicorn"}"#, 422, "invalidField", "hero"),
                ("a hero Olu did not pick", #"{"inviteCode": "\#(fixture.inviteCode)", "hero": "egghead"}"#, 403, "forbidden", nil),
                ("a party on an adventure", #"{"inviteCode": "\#(fixture.inviteCode)", "hero": "cake"}"#, 409, "conflict", nil),
            ]
            for (label, body, status, code, field) in cases {
                try await expectRefused(server, api, label, .post, "/v1/parties/join", key: olu.key, body: body,
                                        status: status, code: code, field: field)
            }
            // Bao is in already with Egghead; switching heroes by joining again is refused.
            try await expectRefused(server, api, "joining again with another hero", .post, "/v1/parties/join", key: fixture.bao.key,
                                    body: #"{"inviteCode": "\#(fixture.inviteCode)", "hero": "power-panda"}"#, status: 409)
        }
    }

    @Test func readingAndLeavingAParty() async throws {
        let server = try await TestServer()
        try await server.test { api in
            let fixture = try await Fixture.make(api)
            for method in [HTTPRequest.Method.get, .delete] {
                let suffix = method == .get ? "" : "/members/me"
                try await expectRefused(server, api, "\(method) someone else's party", method, "/v1/parties/\(fixture.partyID)\(suffix)",
                                        key: fixture.outsider.key, status: 403, code: "forbidden")
                try await expectRefused(server, api, "\(method) an unknown party", method, "/v1/parties/no-such-party\(suffix)",
                                        key: fixture.ana.key, status: 404, code: "notFound")
                let absurd = String(repeating: "p", count: 4000)
                try await expectRefused(server, api, "\(method) an absurd id", method, "/v1/parties/\(absurd)\(suffix)",
                                        key: fixture.ana.key, status: 404, code: "notFound")
            }
        }
    }

    @Test func registeringAPushToStartToken() async throws {
        let server = try await TestServer()
        try await server.test { api in
            let fixture = try await Fixture.make(api)
            let own = "/v1/devices/\(fixture.bao.deviceID)/push-to-start-token"
            let cases: [(String, String, String, Int, String, String?)] = [
                ("Ana's device", "/v1/devices/\(fixture.ana.deviceID)/push-to-start-token",
                 #"{"pushToken": "\#(token(7))", "locale": "en"}"#, 403, "forbidden", nil),
                ("a device id of 200 characters", "/v1/devices/\(String(repeating: "d", count: 200))/push-to-start-token",
                 #"{"pushToken": "\#(token(7))", "locale": "en"}"#, 422, "invalidField", "deviceID"),
                ("a token with non-hex digits", own, #"{"pushToken": "\#(String(repeating: "zz", count: 32))", "locale": "en"}"#,
                 422, "invalidField", "pushToken"),
                ("an odd number of digits", own, #"{"pushToken": "\#(token(7).dropLast())", "locale": "en"}"#,
                 422, "invalidField", "pushToken"),
                ("a token too short", own, #"{"pushToken": "abcdef", "locale": "en"}"#, 422, "invalidField", "pushToken"),
                ("a token of 100,000 digits", own, #"{"pushToken": "\#(String(repeating: "ab", count: 50_000))", "locale": "en"}"#,
                 413, "bodyTooLarge", nil),
                ("a token of 1,000 digits", own, #"{"pushToken": "\#(String(repeating: "ab", count: 500))", "locale": "en"}"#,
                 422, "invalidField", "pushToken"),
                ("a token as a number", own, #"{"pushToken": 1234, "locale": "en"}"#, 422, "invalidField", "pushToken"),
                ("a locale with spaces", own, #"{"pushToken": "\#(token(7))", "locale": "en US"}"#, 422, "invalidField", "locale"),
                ("an empty locale", own, #"{"pushToken": "\#(token(7))", "locale": ""}"#, 422, "invalidField", "locale"),
                ("a locale of 100 letters", own, #"{"pushToken": "\#(token(7))", "locale": "\#(String(repeating: "e", count: 100))"}"#,
                 422, "invalidField", "locale"),
                ("no locale", own, #"{"pushToken": "\#(token(7))"}"#, 422, "invalidField", "locale"),
            ]
            for (label, uri, body, status, code, field) in cases {
                try await expectRefused(server, api, label, .put, uri, key: fixture.bao.key, body: body, status: status, code: code,
                                        field: field)
            }
        }
    }
}
