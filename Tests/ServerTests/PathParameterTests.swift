import Foundation
import Game
import Hummingbird
import Store
import Testing
import Vocabulary

/// Ids in paths are percent-decoded before they are read and checked after: an id
/// an app registers with a space, a slash or any script is the id it addresses
/// again, however the path encodes it.
@Suite struct PathParameterTests {
    /// Ids an app may well make, each needing percent-encoding in a path.
    static let awkwardIDs = ["my phone", "ana/phone", "điện thoại 📱", "100% sure", "a+b?c#d", "ü"]

    /// Every byte but unreserved ASCII percent-encoded, as a careful client does.
    static func encoded(_ id: String, lowercaseHex: Bool = false) -> String {
        let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        let text = id.addingPercentEncoding(withAllowedCharacters: unreserved)!
        return lowercaseHex ? text.replacing(/%[0-9A-F]{2}/) { $0.output.lowercased() } : text
    }

    /// Every byte encoded, letters and digits too.
    static func fullyEncoded(_ id: String) -> String { id.utf8.map { String(format: "%%%02X", $0) }.joined() }

    @Test(arguments: awkwardIDs) func aDeviceRegisteredWithAnEncodedIDIsTheSameDeviceAfter(id: String) async throws {
        let server = try await TestServer()
        try await server.test { api in
            let fixture = try await Fixture.make(api)
            let first = try await api.send(.put, "/v1/devices/\(Self.encoded(id))/push-to-start-token", key: fixture.ana.key,
                                           body: #"{"pushToken": "\#(token(90))", "locale": "vi-VN"}"#)
            #expect(first.status == 200, "\(first)")
            #expect(first.json["deviceID"].string == id)
            // Again, encoded otherwise: the same device, its token replaced.
            for (n, path) in [Self.encoded(id, lowercaseHex: true), Self.fullyEncoded(id)].enumerated() {
                let again = try await api.send(.put, "/v1/devices/\(path)/push-to-start-token", key: fixture.ana.key,
                                               body: #"{"pushToken": "\#(token(91 + n))", "locale": "ko"}"#)
                #expect(again.status == 200, "\(path): \(again)")
                #expect(again.json["deviceID"].string == id)
                #expect(again.json["language"].string == "ko")
            }
            let roster = [PartyMember(player: PlayerID(fixture.ana.id), hero: "power-panda")]
            let devices = try await server.store.pushToStartDevices(of: roster).map(\.device.rawValue)
            #expect(devices.sorted() == [fixture.ana.deviceID, id].sorted(), "one device for the id, stored decoded")
            // Someone else cannot take it over by encoding it differently.
            try await expectRefused(server, api, "Bao on Ana's device", .put,
                                    "/v1/devices/\(Self.fullyEncoded(id))/push-to-start-token", key: fixture.bao.key,
                                    body: #"{"pushToken": "\#(token(95))", "locale": "en"}"#, status: 403, code: "forbidden")
        }
    }

    @Test(arguments: awkwardIDs) func anActivityRegisteredInABodyIsAddressedByItsEncodedID(id: String) async throws {
        let server = try await TestServer()
        try await server.test { api in
            let fixture = try await Fixture.make(api)
            let registered = try await api.send(
                .post, "/v1/adventures/\(fixture.adventureID)/activities", key: fixture.ana.key,
                body: #"{"activityID": \#(quoted(id)), "pushToken": "\#(token(80))", "hero": "power-panda", "frequentPushesEnabled": true, "locale": "en"}"#)
            #expect(registered.status == 201, "\(registered)")
            #expect(registered.json["activityID"].string == id)
            let rotated = try await api.send(.put, "/v1/activities/\(Self.encoded(id))/token", key: fixture.ana.key,
                                             body: #"{"pushToken": "\#(token(81))"}"#)
            #expect(rotated.status == 200, "\(rotated)")
            #expect(rotated.json["activityID"].string == id)
            let stored = try await server.store.liveActivity(ActivityID(id))
            #expect(stored.token?.hex == token(81))
            let dismissed = try await api.send(.post, "/v1/activities/\(Self.fullyEncoded(id))/status", key: fixture.ana.key,
                                               body: #"{"status": "dismissed"}"#)
            #expect(dismissed.status == 200, "\(dismissed)")
            #expect(dismissed.json["status"].string == "dismissed")
        }
    }

    @Test func serverMadeIDsMayBeEncodedToo() async throws {
        let server = try await TestServer()
        try await server.test { api in
            let fixture = try await Fixture.make(api)
            let party = try await api.send(.get, "/v1/parties/\(Self.fullyEncoded(fixture.partyID))", key: fixture.ana.key)
            #expect(party.status == 200, "\(party)")
            #expect(party.json["id"].string == fixture.partyID)
            let adventure = try await api.send(.get, "/v1/adventures/\(Self.fullyEncoded(fixture.adventureID))/events",
                                               key: fixture.ana.key)
            #expect(adventure.status == 200, "\(adventure)")
        }
    }

    @Test func anEncodedSlashStaysInsideItsSegment() async throws {
        let server = try await TestServer()
        try await server.test { api in
            let fixture = try await Fixture.make(api)
            // Unencoded, the slash splits the path into one that does not exist.
            try await expectRefused(server, api, "a raw slash", .put, "/v1/devices/ana/phone/push-to-start-token",
                                    key: fixture.ana.key, body: #"{"pushToken": "\#(token(9))", "locale": "en"}"#,
                                    status: 404, code: "notFound")
        }
    }

    @Test func brokenPercentEncodingIsMalformed() async throws {
        let server = try await TestServer()
        try await server.test { api in
            let fixture = try await Fixture.make(api)
            let body = #"{"pushToken": "\#(token(9))", "locale": "en"}"#
            for bad in ["%ZZ", "phone%", "phone%4", "%FF", "%E2%82", "%C0%AF"] {
                try await expectRefused(server, api, "device \(bad)", .put, "/v1/devices/\(bad)/push-to-start-token",
                                        key: fixture.ana.key, body: body, status: 400, code: "malformedPath", field: "deviceID")
                try await expectRefused(server, api, "party \(bad)", .get, "/v1/parties/\(bad)", key: fixture.ana.key,
                                        status: 400, code: "malformedPath", field: "partyID")
            }
        }
    }

    @Test func idsAreCheckedAfterDecoding() async throws {
        let server = try await TestServer()
        try await server.test { api in
            let fixture = try await Fixture.make(api)
            let body = #"{"pushToken": "\#(token(9))", "locale": "en"}"#
            // 128 code points are an id even when they take 256 bytes; one more is not.
            let longest = try await api.send(.put, "/v1/devices/\(Self.encoded(String(repeating: "ü", count: 128)))/push-to-start-token",
                                             key: fixture.ana.key, body: body)
            #expect(longest.status == 200, "\(longest)")
            let refused = [
                ("129 code points", Self.encoded(String(repeating: "ü", count: 129))),
                ("a NUL", "ana%00phone"), ("a line feed", "ana%0Aphone"), ("DEL", "%7F"), ("a C1 control", "%C2%85"),
            ]
            for (label, path) in refused {
                try await expectRefused(server, api, label, .put, "/v1/devices/\(path)/push-to-start-token", key: fixture.ana.key,
                                        body: body, status: 422, code: "invalidField", field: "deviceID")
                try await expectRefused(server, api, "activity with \(label)", .put, "/v1/activities/\(path)/token",
                                        key: fixture.ana.key, body: #"{"pushToken": "\#(token(9))"}"#,
                                        status: 422, code: "invalidField", field: "activityID")
            }
            // A server-made id that is not one names nothing, encoded or not.
            for path in ["%00", "no%20such%20party", Self.encoded("điện thoại")] {
                try await expectRefused(server, api, "party \(path)", .get, "/v1/parties/\(path)", key: fixture.ana.key,
                                        status: 404, code: "notFound")
            }
        }
    }
}
