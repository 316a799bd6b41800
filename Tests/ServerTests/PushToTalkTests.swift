import APNs
import APNsSimulator
import Foundation
import Server
import Services
import Store
import StoreTestSupport
import Testing
import Vocabulary

/// The party's walkie-talkie end to end: over a live HTTP port, through the
/// dispatcher and libcurl to the APNs simulator over TLS.
@Suite struct PushToTalkTests {
    /// Ephemeral Push To Talk tokens have no fixed length: 16, 32 and 100 bytes here.
    static let tokens = [String(repeating: "a1", count: 16), String(repeating: "b2", count: 32), String(repeating: "c3", count: 100)]
    static let audio: [UInt8] = (0..<6000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }

    @Test(arguments: StoreEngine.available) func membersTalkOneAtATimeAndTheAdventuresEndSendsThemAway(engine: StoreEngine) async throws {
        try await DeliveryHarness.run(engine) { harness in
            let fixture = try await harness.api { try await Fixture.make($0) }
            let channelPath = "/v1/parties/\(fixture.partyID)/channel"

            let (upload, bao) = try await harness.api { api in
                for (member, token) in zip(fixture.members, Self.tokens) {
                    let joined = try await api.send(.put, "\(channelPath)/members/me", key: member.key,
                                                    body: #"{"pushToken": "\#(token)"}"#)
                    try #require(joined.status == 200, "\(joined)")
                }
                let channel = try await api.send(.get, channelPath, key: fixture.ana.key)
                #expect(channel.json["members"].array.map { $0["listening"] } == [.bool(true), .bool(true), .bool(true)])
                #expect(channel.json["image"].string == "🐼🦄🐳")
                #expect(channel.json["service"]["status"].string == "available")

                let upload = try await api.sendBytes(.post, "\(channelPath)/transmissions?durationMilliseconds=4000",
                                                     key: fixture.ana.key, contentType: "audio/aac", bytes: Self.audio)
                try #require(upload.reply.status == 201, "\(upload.reply)")
                // Ana's message plays for 4 s of the server's clock, which the test holds still.
                let bao = try await api.sendBytes(.post, "\(channelPath)/transmissions?durationMilliseconds=1000",
                                                  key: fixture.bao.key, contentType: "audio/aac", bytes: [1, 2, 3])
                return (upload.reply, bao.reply)
            }
            #expect(bao.status == 409, "one speaker at a time: \(bao)")
            let transmissionID = try #require(upload.json["id"].string)

            try await harness.withServices {
                try await eventually("the two announcements") {
                    harness.simulator.accepted().count { $0.pushType == .pushtotalk } == 2
                }
            }
            let announced = harness.simulator.accepted().filter { $0.pushType == .pushtotalk }
            #expect(Set(announced.map(\.deviceToken)) == [Self.tokens[1], Self.tokens[2]], "the others, not the speaker")
            for push in announced {
                #expect(push.topic == "\(TestServer.bundleID).voip-ptt")
                #expect(push.priority == 10)
                #expect(push.expiration == 0)
                let body = try #require(try JSONSerialization.jsonObject(with: push.payload) as? [String: Any])
                let speaker = try #require(body["activeSpeaker"] as? [String: Any])
                #expect(speaker["playerName"] as? String == "Ana")
                #expect(speaker["heroName"] as? String == "Power Panda")
                #expect(speaker["avatar"] as? String == "🐼")
                #expect(body["transmissionID"] as? String == transmissionID)
            }

            // Each listener fetches the message with their own key and gets Ana's bytes.
            try await harness.api { api in
                for member in [fixture.bao, fixture.chae] {
                    let fetched = try await api.sendBytes(.get, "\(channelPath)/transmissions/\(transmissionID)", key: member.key)
                    #expect(fetched.reply.status == 200)
                    #expect(fetched.reply.headers[.contentType] == "audio/aac")
                    #expect(fetched.bytes == Self.audio)
                }
            }

            // The game master ends the adventure: every member's app is told to leave.
            try await harness.api { api in
                let ended = try await api.send(.post, "/v1/gm/adventures/\(fixture.adventureID)/end", key: TestServer.gameMasterKey)
                try #require(ended.status == 202, "\(ended)")
            }
            try await harness.withServices {
                try await harness.playToEnd(AdventureID(fixture.adventureID))
                try await eventually("the leave pushes") {
                    harness.simulator.accepted().count { $0.pushType == .pushtotalk && $0.leavesChannel } == 3
                }
            }
            let leaves = harness.simulator.accepted().filter { $0.pushType == .pushtotalk && $0.leavesChannel }
            #expect(Set(leaves.map(\.deviceToken)) == Set(Self.tokens))
            try await harness.api { api in
                let channel = try await api.send(.get, channelPath, key: fixture.ana.key)
                #expect(channel.json["members"].array.map { $0["listening"] } == [.bool(false), .bool(false), .bool(false)],
                        "their tokens are dropped: \(channel)")
            }
        }
    }

    @Test(arguments: StoreEngine.available) func onlyMembersMayJoinTalkOrListenAndBadUploadsAreRefused(engine: StoreEngine) async throws {
        try await DeliveryHarness.run(engine) { harness in
            let fixture = try await harness.api { try await Fixture.make($0) }
            let channelPath = "/v1/parties/\(fixture.partyID)/channel"
            try await harness.api { api in
                let ana = fixture.ana, olu = fixture.outsider
                try #require(try await api.send(.put, "\(channelPath)/members/me", key: ana.key,
                                                body: #"{"pushToken": "\#(Self.tokens[0])"}"#).status == 200)
                let upload = try await api.sendBytes(.post, "\(channelPath)/transmissions?durationMilliseconds=500",
                                                     key: ana.key, contentType: "audio/mp4", bytes: Self.audio)
                let id = try #require(upload.reply.json["id"].string)

                // Someone who is not in the party, everywhere.
                #expect(try await api.send(.get, channelPath, key: olu.key).status == 403)
                #expect(try await api.send(.put, "\(channelPath)/members/me", key: olu.key,
                                           body: #"{"pushToken": "\#(Self.tokens[1])"}"#).status == 403)
                #expect(try await api.sendBytes(.post, "\(channelPath)/transmissions?durationMilliseconds=500", key: olu.key,
                                                contentType: "audio/aac", bytes: Self.audio).reply.status == 403)
                #expect(try await api.sendBytes(.get, "\(channelPath)/transmissions/\(id)", key: olu.key).reply.status == 403)
                #expect(try await api.send(.get, channelPath).status == 401)

                // Bad uploads from a member, each with its own answer.
                let wrongType = try await api.sendBytes(.post, "\(channelPath)/transmissions?durationMilliseconds=500",
                                                        key: ana.key, contentType: "video/mp4", bytes: Self.audio)
                #expect(wrongType.reply.status == 415)
                #expect(wrongType.reply.errorCode == "unsupportedAudioType")
                for query in ["?durationMilliseconds=600000", "?durationMilliseconds=0", "?durationMilliseconds=half",
                              "?durationMilliseconds=", ""] {
                    let refused = try await api.sendBytes(.post, "\(channelPath)/transmissions\(query)",
                                                          key: ana.key, contentType: "audio/aac", bytes: Self.audio)
                    #expect(refused.reply.status == 422, "\(query): \(refused.reply)")
                    #expect(refused.reply.errorCode == "invalidField" && refused.reply.errorField == "durationMilliseconds",
                            "\(query): \(refused.reply)")
                }
                let silence = try await api.sendBytes(.post, "\(channelPath)/transmissions?durationMilliseconds=500",
                                                      key: ana.key, contentType: "audio/aac", bytes: [])
                #expect(silence.reply.status == 400 && silence.reply.errorCode == "invalidInput", "\(silence.reply)")
                let tooLarge = try await api.sendBytes(.post, "\(channelPath)/transmissions?durationMilliseconds=500",
                                                       key: ana.key, contentType: "audio/aac",
                                                       bytes: [UInt8](repeating: 7, count: (1 << 20) + 1))
                #expect(tooLarge.reply.status == 413)
                let notJoined = try await api.sendBytes(.post, "\(channelPath)/transmissions?durationMilliseconds=500",
                                                        key: fixture.bao.key, contentType: "audio/aac", bytes: Self.audio)
                #expect(notJoined.reply.status == 409)
                #expect(notJoined.reply.errorCode == "notInChannel")
                let badToken = try await api.send(.put, "\(channelPath)/members/me", key: fixture.bao.key,
                                                  body: #"{"pushToken": "not-hex"}"#)
                #expect(badToken.status == 422 && badToken.errorField == "pushToken", "\(badToken)")
                #expect(try await api.send(.get, "/v1/push-to-talk/status", key: ana.key).json["status"].string == "available")
            }
        }
    }

    /// A member who leaves the party is sent off the channel; the others stay.
    @Test(arguments: StoreEngine.available) func leavingThePartySendsOnlyThatMemberOffTheChannel(engine: StoreEngine) async throws {
        try await DeliveryHarness.run(engine) { harness in
            let fixture = try await harness.api { try await Fixture.make($0) }
            let channelPath = "/v1/parties/\(fixture.partyID)/channel"
            try await harness.api { api in
                for (member, token) in zip(fixture.members, Self.tokens) {
                    try #require(try await api.send(.put, "\(channelPath)/members/me", key: member.key,
                                                    body: #"{"pushToken": "\#(token)"}"#).status == 200)
                }
                let left = try await api.send(.delete, "/v1/parties/\(fixture.partyID)/members/me", key: fixture.chae.key)
                try #require(left.status == 204, "\(left)")
            }
            try await harness.withServices {
                try await eventually("the leave push") {
                    harness.simulator.accepted().contains { $0.pushType == .pushtotalk && $0.leavesChannel }
                }
            }
            let leaves = harness.simulator.accepted().filter { $0.pushType == .pushtotalk && $0.leavesChannel }
            #expect(leaves.map(\.deviceToken) == [Self.tokens[2]])
            let channel = try await harness.api { api in try await api.send(.get, channelPath, key: fixture.ana.key) }
            #expect(channel.json["members"].array.map { $0["listening"] } == [.bool(true), .bool(true)], "\(channel)")
        }
    }

    @Test(arguments: StoreEngine.available) func audioIsDeletedAfterTheRetentionButTheRecordStays(engine: StoreEngine) async throws {
        try await DeliveryHarness.run(engine) { harness in
            let fixture = try await harness.api { try await Fixture.make($0) }
            let channelPath = "/v1/parties/\(fixture.partyID)/channel"
            let id = try await harness.api { api in
                try #require(try await api.send(.put, "\(channelPath)/members/me", key: fixture.ana.key,
                                                body: #"{"pushToken": "\#(Self.tokens[0])"}"#).status == 200)
                let upload = try await api.sendBytes(.post, "\(channelPath)/transmissions?durationMilliseconds=500",
                                                     key: fixture.ana.key, contentType: "audio/wav", bytes: Self.audio)
                return try #require(upload.reply.json["id"].string)
            }
            let retention = AudioRetention(store: harness.store, retention: .seconds(3600), now: { harness.clock.now })
            #expect(try await retention.deleteExpiredAudio() == 0)
            harness.clock.advance(by: 3601)
            #expect(try await retention.deleteExpiredAudio() == 1)
            try await harness.api { api in
                let fetched = try await api.sendBytes(.get, "\(channelPath)/transmissions/\(id)", key: fixture.bao.key)
                #expect(fetched.reply.status == 410)
                #expect(fetched.reply.errorCode == "audioDeleted")
            }
        }
    }

    /// APNs says a member's Push To Talk token is no longer valid: it is dropped and
    /// that member gets nothing more until their app joins again.
    @Test(arguments: StoreEngine.available) func anUnregisteredPushToTalkTokenIsDropped(engine: StoreEngine) async throws {
        try await DeliveryHarness.run(engine) { harness in
            let fixture = try await harness.api { try await Fixture.make($0) }
            let channelPath = "/v1/parties/\(fixture.partyID)/channel"
            // APNs' timestamp is after the app registered the token: that registration is void.
            harness.simulator.markUnregistered(deviceToken: Self.tokens[1], since: harness.clock.now.addingTimeInterval(60))
            try await harness.api { api in
                for (member, token) in zip(fixture.members, Self.tokens) {
                    try #require(try await api.send(.put, "\(channelPath)/members/me", key: member.key,
                                                    body: #"{"pushToken": "\#(token)"}"#).status == 200)
                }
                let upload = try await api.sendBytes(.post, "\(channelPath)/transmissions?durationMilliseconds=500",
                                                     key: fixture.ana.key, contentType: "audio/aac", bytes: Self.audio)
                try #require(upload.reply.status == 201)
            }
            try await harness.withServices {
                try await eventually("the answers") {
                    harness.simulator.accepted().count { $0.pushType == .pushtotalk } == 1
                        && harness.simulator.rejected().count { $0.status == 410 } == 1
                }
                try await eventually("Bao no longer listening") {
                    let channel = try await harness.api { api in try await api.send(.get, channelPath, key: fixture.ana.key) }
                    return channel.json["members"].array.first { $0["player"].string == fixture.bao.id }?["listening"] == .bool(false)
                }
            }
        }
    }
}

extension RecordedPush {
    var leavesChannel: Bool {
        ((try? JSONSerialization.jsonObject(with: payload)) as? [String: Any])?["leaveChannel"] as? Bool == true
    }
}
