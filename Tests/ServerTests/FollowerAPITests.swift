import Foundation
import Server
import Services
import Store
import Testing
import Vocabulary

/// Following over the HTTP API: who may follow, with what, and each refusal's
/// answer. No APNs here: a follow that needs a channel is told to come back.
@Suite struct FollowerAPITests {
    static func follow(_ api: API, _ fixture: Fixture, key: String, code: String? = nil, body: String? = nil) async throws -> Reply {
        try await api.send(.post, "/v1/adventures/\(fixture.adventureID)/followers", key: key,
                           body: body ?? #"{"followCode": "\#(code ?? fixture.followCode)", "locale": "vi-VN", "broadcastChannel": true}"#)
    }

    @Test func theFollowCodeIsShownToTheParty() async throws {
        try await TestServer().test { api in
            let fixture = try await Fixture.make(api)
            #expect(fixture.followCode.count == 8)
            let read = try await api.send(.get, "/v1/adventures/\(fixture.adventureID)", key: fixture.bao.key)
            #expect(read.json["followCode"].string == fixture.followCode)
            // A private adventure has none.
            let other = try await Fixture.make(api, startAdventure: false, tokens: 10)
            let started = try await api.send(.post, "/v1/gm/adventures", key: TestServer.gameMasterKey,
                                             body: #"{"partyID": "\#(other.partyID)", "route": "whispering-woods", "tickInterval": 5}"#)
            #expect(started.status == 201)
            #expect(started.json["followCode"] == .null)
        }
    }

    @Test func refusalsSayWhyAndStoreNothing() async throws {
        let server = try await TestServer(followers: FollowerSettings(tokenFollowersPerAdventure: 0))
        try await server.test { api in
            let fixture = try await Fixture.make(api)
            let uri = "/v1/adventures/\(fixture.adventureID)/followers"
            let olu = fixture.outsider
            try await expectRefused(server, api, "a wrong code", .post, uri, key: olu.key,
                                    body: #"{"followCode": "ZZZZ-ZZZZ", "locale": "en", "broadcastChannel": true}"#,
                                    status: 403, code: "forbidden")
            try await expectRefused(server, api, "a member", .post, uri, key: fixture.bao.key,
                                    body: #"{"followCode": "\#(fixture.followCode)", "locale": "en", "broadcastChannel": true}"#,
                                    status: 409, code: "conflict")
            try await expectRefused(server, api, "neither a channel nor a device", .post, uri, key: olu.key,
                                    body: #"{"followCode": "\#(fixture.followCode)", "locale": "en"}"#, status: 422, code: "invalidField")
            try await expectRefused(server, api, "no follower per token allowed", .post, uri, key: olu.key,
                                    body: #"{"followCode": "\#(fixture.followCode)", "locale": "en", "deviceID": "\#(olu.deviceID)"}"#,
                                    status: 409, code: "conflict")
            try await expectRefused(server, api, "an unknown locale", .post, uri, key: olu.key,
                                    body: #"{"followCode": "\#(fixture.followCode)", "locale": "", "broadcastChannel": true}"#,
                                    status: 422, code: "invalidField")
            try await expectRefused(server, api, "an activity without a hero from a non-follower", .post,
                                    "/v1/adventures/\(fixture.adventureID)/activities", key: olu.key,
                                    body: #"{"activityID": "olu-1", "pushToken": "\#(token(60))", "frequentPushesEnabled": true, "locale": "en"}"#,
                                    status: 403, code: "forbidden")
            try await expectRefused(server, api, "leaving what one does not follow", .delete, "\(uri)/me", key: olu.key,
                                    status: 404, code: "notFound")
        }
    }

    /// No channel can be had: the follow is kept, and the answer says when to ask again.
    @Test func aFollowWithoutAChannelYetIs503WithRetryAfter() async throws {
        // The app's channel limit reached (here: none allowed at all).
        let limited = try await TestServer(followers: FollowerSettings(channelLimit: 0))
        try await limited.test { api in
            let fixture = try await Fixture.make(api)
            let reply = try await Self.follow(api, fixture, key: fixture.outsider.key)
            #expect(reply.status == 503, "\(reply)")
            #expect(reply.errorCode == "channelUnavailable")
            #expect(reply.headers[.retryAfter] == "60")
            #expect(reply.json["message"].string?.contains("as many broadcast channels as it may") == true)
            #expect(try await limited.store.followers(of: AdventureID(fixture.adventureID)).count == 1)
        }
        // No APNs client to make it with: tried again later.
        let unconnected = try await TestServer()
        try await unconnected.test { api in
            let fixture = try await Fixture.make(api)
            let reply = try await Self.follow(api, fixture, key: fixture.outsider.key)
            #expect(reply.status == 503, "\(reply)")
            #expect(reply.headers[.retryAfter] == "60")
            let channels = try await unconnected.store.followerChannels(of: AdventureID(fixture.adventureID))
            #expect(channels.map(\.state) == [.wanted])
            #expect(channels.first?.note == "no broadcast channel sender is configured")
        }
    }

    /// An app on iOS 18 that names its device too follows per token while no channel
    /// can be made, and is told why; at the app's channel limit it is not.
    @Test func aFollowerOnAChannelFallsBackToItsDeviceWhileNoChannelCanBeMade() async throws {
        @Sendable func body(_ fixture: Fixture) -> String {
            #"{"followCode": "\#(fixture.followCode)", "locale": "ko-KR", "broadcastChannel": true, "deviceID": "\#(fixture.outsider.deviceID)"}"#
        }
        // No APNs client to make channels with: per token at once.
        let unconnected = try await TestServer()
        try await unconnected.test { api in
            let fixture = try await Fixture.make(api)
            let reply = try await Self.follow(api, fixture, key: fixture.outsider.key, body: body(fixture))
            #expect(reply.status == 201, "\(reply)")
            #expect(reply.json["delivery"].string == "token")
            #expect(reply.json["pushToStartQueued"].bool == true)
            #expect(reply.json["channel"] == .null)
            #expect(reply.json["channelUnavailable"].string == "no broadcast channel sender is configured")
            let outbox = try await unconnected.store.outbox(of: AdventureID(fixture.adventureID))
            let device = DeviceID(fixture.outsider.deviceID)
            #expect(outbox.filter { $0.message.target == .pushToStart(device) }.count == 1)
            // A device that is not the follower's: the fallback's refusal is in the 503.
            let kim = try await FollowerDeliveryTests.newPlayer(api, "Kim")
            let refused = try await Self.follow(api, fixture, key: kim.key, body: body(fixture))
            #expect(refused.status == 503, "\(refused)")
            #expect(refused.errorCode == "channelUnavailable")
            #expect(refused.json["message"].string?.contains("following per token instead was refused: device") == true, "\(refused)")
            #expect(try await unconnected.store.outbox(of: AdventureID(fixture.adventureID)).count == outbox.count)
        }
        // At the channel limit: no fallback, the follower waits for a channel.
        let limited = try await TestServer(followers: FollowerSettings(channelLimit: 0))
        try await limited.test { api in
            let fixture = try await Fixture.make(api)
            let reply = try await Self.follow(api, fixture, key: fixture.outsider.key, body: body(fixture))
            #expect(reply.status == 503, "\(reply)")
            #expect(reply.headers[.retryAfter] == "60")
            let outbox = try await limited.store.outbox(of: AdventureID(fixture.adventureID))
            #expect(!outbox.contains { $0.message.target == .pushToStart(DeviceID(fixture.outsider.deviceID)) })
        }
    }

    @Test func aFollowerPerTokenIsWokenAndLeaves() async throws {
        let server = try await TestServer()
        try await server.test { api in
            let fixture = try await Fixture.make(api)
            let olu = fixture.outsider
            let body = #"{"followCode": "\#(fixture.followCode.lowercased())", "locale": "ko-KR", "deviceID": "\#(olu.deviceID)"}"#
            let first = try await Self.follow(api, fixture, key: olu.key, body: body)
            #expect(first.status == 201, "\(first)")
            #expect(first.json["delivery"].string == "token")
            #expect(first.json["language"].string == "ko")
            #expect(first.json["pushToStartQueued"].bool == true)
            let again = try await Self.follow(api, fixture, key: olu.key, body: body)
            #expect(again.status == 200)
            let outbox = try await server.store.outbox(of: AdventureID(fixture.adventureID))
            #expect(outbox.filter { $0.message.target == .pushToStart(DeviceID(olu.deviceID)) }.count == 2,
                    "woken again while its activity has not registered")
            let registered = try await api.send(.post, "/v1/adventures/\(fixture.adventureID)/activities", key: olu.key,
                                                body: #"{"activityID": "olu-1", "pushToken": "\#(token(60))", "frequentPushesEnabled": true, "locale": "ko"}"#)
            #expect(registered.status == 201, "\(registered)")
            #expect(registered.json["hero"] == .null)
            let left = try await api.send(.delete, "/v1/adventures/\(fixture.adventureID)/followers/me", key: olu.key)
            #expect(left.status == 204)
            #expect(try await server.store.liveActivity("olu-1").status == .ended)
        }
    }
}
