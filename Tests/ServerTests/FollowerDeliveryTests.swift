import APNs
import APNsSimulator
import Catalog
import Foundation
import Game
import PushPolicy
import Server
import Store
import StoreTestSupport
import Testing
import Vocabulary

/// Followers end to end: over the HTTP API, the real store, the ticker, the
/// dispatcher and the channel keeper, and the APNs simulator over TLS and HTTP/2,
/// which records what each follower's device received.
@Suite struct FollowerDeliveryTests {
    struct Follower {
        var key: String
        var locale: String
        var language: String
    }

    /// A player outside any party, as an app makes one.
    static func newPlayer(_ api: API, _ name: String) async throws -> (id: String, key: String) {
        let created = try await api.send(.post, "/v1/players", body: #"{"name": \#(quoted(name))}"#)
        try #require(created.status == 201, "\(created)")
        return (try #require(created.json["player"]["id"].string), try #require(created.json["apiKey"].string))
    }

    /// An app on iOS 18 follows: it gets the channel of its language and what its
    /// activity starts with, and `Activity.request(…, pushType: .channel(id))`
    /// subscribes the device to it (the simulator plays that part).
    static func followOnChannel(_ api: API, _ harness: DeliveryHarness, fixture: Fixture, key: String, locale: String,
                                device: String) async throws -> Reply {
        let reply = try await api.send(.post, "/v1/adventures/\(fixture.adventureID)/followers", key: key,
                                       body: #"{"followCode": "\#(fixture.followCode)", "locale": "\#(locale)", "broadcastChannel": true}"#)
        if reply.status == 200 || reply.status == 201, let channel = reply.json["channel"]["id"].string {
            _ = try harness.simulator.subscribe(device: device, to: BroadcastChannelID(channel))
        }
        return reply
    }

    /// The party-wide alert keys a follower may hear, and the one their push-to-start carries.
    static let followerAlertKeys: Set<String> = Set([AlertKind.bossDefeated, .victory, .defeat, .timeLimitReached].flatMap {
        [$0.titleKey, $0.followerBodyKey!]
    } + [AlertKind.following.titleKey, AlertKind.following.bodyKey])

    @Test(arguments: StoreEngine.available)
    func aPartyPlaysToTheEndWhileFollowersWatchOnChannelsAndPerToken(engine: StoreEngine) async throws {
        try await DeliveryHarness.run(engine) { harness in
            // Two parties play the same adventure (same seed, route and clock): the
            // first watched by three followers, the second by no one.
            let (watched, alone) = try await harness.api { api in
                (try await Fixture.make(api), try await Fixture.make(api, tokens: 10))
            }
            let id = AdventureID(watched.adventureID)
            let (vi, ko, sam) = try await harness.api { api in
                let vi = try await Self.newPlayer(api, "Vy")
                let ko = try await Self.newPlayer(api, "Min")
                let sam = try await Self.newPlayer(api, "Sam")
                let device = try await api.send(.put, "/v1/devices/sam-phone/push-to-start-token", key: sam.key,
                                                body: #"{"pushToken": "\#(token(200))", "locale": "en-US"}"#)
                try #require(device.status == 200, "\(device)")
                return (vi, ko, sam)
            }
            let (viChannel, koChannel) = try await harness.api { api in
                let first = try await Self.followOnChannel(api, harness, fixture: watched, key: vi.key, locale: "vi-VN", device: "vy-phone")
                try #require(first.status == 201, "\(first)")
                #expect(first.json["delivery"].string == "channel")
                #expect(first.json["language"].string == "vi")
                #expect(first.json["attributes"]["heroID"].string == "")
                #expect(first.json["contentState"]["heroes"].array.count == 3)
                #expect(first.json["channel"]["messageStoragePolicy"].int == 1)
                let second = try await Self.followOnChannel(api, harness, fixture: watched, key: ko.key, locale: "ko-KR", device: "min-phone")
                try #require(second.status == 201, "\(second)")
                // Following again answers 200 with the same channel.
                let again = try await Self.followOnChannel(api, harness, fixture: watched, key: vi.key, locale: "vi-VN", device: "vy-phone")
                #expect(again.status == 200)
                #expect(again.json["channel"]["id"] == first.json["channel"]["id"])
                let perToken = try await api.send(.post, "/v1/adventures/\(watched.adventureID)/followers", key: sam.key,
                                                  body: #"{"followCode": "\#(watched.followCode.lowercased())", "locale": "en-US", "deviceID": "sam-phone"}"#)
                try #require(perToken.status == 201, "\(perToken)")
                #expect(perToken.json["delivery"].string == "token")
                #expect(perToken.json["pushToStartQueued"].bool == true)
                #expect(perToken.json["channel"] == .null)
                return (try #require(first.json["channel"]["id"].string), try #require(second.json["channel"]["id"].string))
            }
            #expect(viChannel != koChannel)
            #expect(Set(harness.simulator.channels(of: TestServer.bundleID).map(\.id.rawValue)) == [viChannel, koChannel])

            try await harness.withServices {
                try await eventually("the push-to-start pushes") { try await harness.isSettled(id, at: 0) }
                // Sam's phone got its push-to-start; its new activity reports its token, without a hero.
                let start = try #require(harness.simulator.deliveries(to: token(200)).last)
                #expect((start.aps["attributes"] as? [String: Any])?["heroID"] as? String == "")
                try await harness.api { api in
                    let registered = try await api.send(.post, "/v1/adventures/\(watched.adventureID)/activities", key: sam.key,
                                                        body: #"{"activityID": "sam-activity", "pushToken": "\#(token(201))", "frequentPushesEnabled": false, "locale": "en-US"}"#)
                    try #require(registered.status == 201, "\(registered)")
                    #expect(registered.json["hero"] == .null)
                }
                // Each tick's pushes of both parties answered before the clock moves on,
                // so that no routine update of either is superseded.
                try await harness.playToEnd(id) { tick in
                    try await eventually("tick \(tick) of the party no one watches") {
                        try await harness.isSettled(AdventureID(alone.adventureID), at: tick)
                    }
                }
                // The end's dismissal date passes: the keeper deletes the channels.
                harness.clock.advance(by: TimeInterval(harness.configuration.pushPolicy.dismissalDelay + 1))
                try await eventually("the channels deleted") { harness.simulator.channels(of: TestServer.bundleID).isEmpty }
            }
            #expect(try await harness.store.followerChannels(of: id).map(\.state) == [.deleted, .deleted])

            let outbox = try await harness.store.outbox(of: id)
            #expect(outbox.allSatisfy { $0.state == .sent }, "\(outbox.filter { $0.state != .sent }.map { "\($0.message.target) \($0.state) \($0.outcome ?? "")" })")
            let channels = try await harness.store.followerChannels(of: id)
            let strings = harness.resources.content.strings
            for (device, channel, language) in [("vy-phone", viChannel, "vi"), ("min-phone", koChannel, "ko")] {
                let stored = try #require(channels.first { $0.apnsID?.rawValue == channel })
                #expect(stored.language == language)
                let decided = outbox.filter { $0.message.target == .followerChannel(stored.id) }
                let received = harness.simulator.deliveries(to: device)
                // Every broadcast, in order, as decided: one per tick at most.
                #expect(received.map(\.payload) == decided.map(\.message.payload), "\(device)")
                #expect(received.count > 10)
                try Self.expectAFollowersView(received.map(\.payload), language: language, strings: strings, device: device)
                #expect(received.allSatisfy { $0.route == .channel(BroadcastChannelID(channel)) })
            }
            // Sam's own activity: the followers' pushes to its token, in English.
            let samDecided = outbox.filter { $0.message.target == .liveActivity("sam-activity") }
            let samReceived = harness.simulator.deliveries(to: token(201))
            #expect(samReceived.map(\.payload) == samDecided.map(\.message.payload))
            try Self.expectAFollowersView(samReceived.map(\.payload), language: "en", strings: strings, device: "Sam's phone")

            // The members' pushes are those of the party no one watched, byte for byte
            // (but for the adventure's id in the push-to-start's attributes).
            let accepted = harness.simulator.accepted()
            for index in 0..<3 {
                let watchedPayloads = accepted.filter { $0.deviceToken == token(index) || $0.deviceToken == token(100 + index) }
                    .map { String(decoding: $0.payload, as: UTF8.self).replacingOccurrences(of: watched.adventureID, with: "•") }
                let alonePayloads = accepted.filter { $0.deviceToken == token(10 + index) || $0.deviceToken == token(110 + index) }
                    .map { String(decoding: $0.payload, as: UTF8.self).replacingOccurrences(of: alone.adventureID, with: "•") }
                #expect(watchedPayloads.count > 10)
                #expect(watchedPayloads == alonePayloads, "member \(index)")
            }
            // The push log says where each push went.
            let log = try await harness.store.pushLog(of: id)
            #expect(Set(log.compactMap { if case .channel(let channel) = $0.destination { channel.rawValue } else { nil } })
                    == [viChannel, koChannel])
            #expect(harness.simulator.acceptedBroadcasts().filter { [viChannel, koChannel].contains($0.channelID.rawValue) }
                .allSatisfy { $0.devicesReached == 1 })
        }
    }

    /// What a follower's device shows: strictly newer each time, in the follower's
    /// language, no hero of their own, only the party-wide alerts and at least the
    /// end's, and the end last.
    static func expectAFollowersView(_ payloads: [Data], language: String, strings: StringCatalog,
                                     device: String) throws {
        var last = 0
        var alerts = 0
        for payload in payloads {
            let aps = try #require((try JSONSerialization.jsonObject(with: payload) as? [String: Any])?["aps"] as? [String: Any])
            let timestamp = try #require(aps["timestamp"] as? Int)
            #expect(timestamp > last, "\(device): timestamps go back")
            last = timestamp
            let state = try #require(aps["content-state"] as? [String: Any])
            let latest = try #require(state["latestEvent"] as? [String: Any])
            let text = LocalizedText(key: latest["key"] as? String ?? "", args: latest["args"] as? [String] ?? [])
            #expect(state["eventDescription"] as? String == strings.format(text, language: language), "\(device)")
            if let alert = aps["alert"] as? [String: Any] {
                alerts += 1
                for part in ["title", "body"] {
                    let key = try #require((alert[part] as? [String: Any])?["loc-key"] as? String)
                    #expect(followerAlertKeys.contains(key), "\(device) heard \(key)")
                }
            }
        }
        #expect(alerts >= 1, "\(device) heard no alert")
        let end = try #require(payloads.last.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] })
        #expect((end["aps"] as? [String: Any])?["event"] as? String == "end")
        #expect((end["aps"] as? [String: Any])?["dismissal-date"] is Int)
    }

    /// The management API fails when the first follower of a language arrives: the
    /// follow is kept and answered 503 with Retry-After; the keeper makes the channel
    /// once APNs answers again; the app asks again and gets it, and its device then
    /// holds every broadcast.
    @Test(arguments: StoreEngine.available)
    func aFollowerStillGetsTheAdventureWhenMakingItsChannelFailsAtFirst(engine: StoreEngine) async throws {
        try await DeliveryHarness.run(engine) { harness in
            let fixture = try await harness.api { try await Fixture.make($0) }
            let id = AdventureID(fixture.adventureID)
            let watcher = try await harness.api { try await Self.newPlayer($0, "Vy") }
            try harness.simulator.failNext(1, status: 503, reason: .serviceUnavailable, of: .channelManagement)
            let refused = try await harness.api { api in
                try await Self.followOnChannel(api, harness, fixture: fixture, key: watcher.key, locale: "vi", device: "vy-phone")
            }
            #expect(refused.status == 503, "\(refused)")
            #expect(refused.errorCode == "channelUnavailable")
            #expect(refused.headers[.retryAfter] == "1")
            #expect(try await harness.store.followers(of: id).map(\.player.rawValue) == [watcher.id], "the follow is kept")
            #expect(harness.simulator.channels(of: TestServer.bundleID).isEmpty)

            try await harness.withServices {
                // Its retry time comes: the keeper makes the channel.
                harness.clock.advance(by: 1)
                try await eventually("the channel made by the keeper") { !harness.simulator.channels(of: TestServer.bundleID).isEmpty }
                let again = try await harness.api { api in
                    try await Self.followOnChannel(api, harness, fixture: fixture, key: watcher.key, locale: "vi", device: "vy-phone")
                }
                #expect(again.status == 200, "\(again)")
                try await harness.playToEnd(id)
            }
            let stored = try #require(try await harness.store.followerChannels(of: id).first)
            let decided = try await harness.store.outbox(of: id).filter { $0.message.target == .followerChannel(stored.id) }
            let received = harness.simulator.deliveries(to: "vy-phone")
            #expect(received.map(\.payload) == decided.map(\.message.payload))
            #expect(decided.allSatisfy { $0.state == .sent })
            try Self.expectAFollowersView(received.map(\.payload), language: "vi", strings: harness.resources.content.strings,
                                          device: "vy-phone")
        }
    }

    /// APNs refuses to make channels (the app lacks the broadcast capability): an app
    /// on iOS 18 that named its device follows per token instead and sees the whole
    /// adventure on its own activity; one that named none is told to ask again.
    @Test(arguments: StoreEngine.available)
    func followersFallBackToPerTokenPushesWhileAPNsRefusesChannels(engine: StoreEngine) async throws {
        try await DeliveryHarness.run(engine) { harness in
            let fixture = try await harness.api { try await Fixture.make($0) }
            let id = AdventureID(fixture.adventureID)
            harness.simulator.setBroadcastCapability(false, bundleID: TestServer.bundleID)
            let sam = try await harness.api { api in
                let sam = try await Self.newPlayer(api, "Sam")
                let device = try await api.send(.put, "/v1/devices/sam-phone/push-to-start-token", key: sam.key,
                                                body: #"{"pushToken": "\#(token(200))", "locale": "en-US"}"#)
                try #require(device.status == 200, "\(device)")
                let fellBack = try await api.send(.post, "/v1/adventures/\(fixture.adventureID)/followers", key: sam.key, body:
                    #"{"followCode": "\#(fixture.followCode)", "locale": "en-US", "broadcastChannel": true, "deviceID": "sam-phone"}"#)
                #expect(fellBack.status == 201, "\(fellBack)")
                #expect(fellBack.json["delivery"].string == "token")
                #expect(fellBack.json["pushToStartQueued"].bool == true)
                #expect(fellBack.json["channelUnavailable"].string?.contains("FeatureNotEnabled") == true, "\(fellBack)")
                let vy = try await Self.newPlayer(api, "Vy")
                let refused = try await Self.followOnChannel(api, harness, fixture: fixture, key: vy.key, locale: "vi", device: "vy-phone")
                #expect(refused.status == 503, "\(refused)")
                #expect(refused.errorCode == "channelUnavailable")
                #expect(refused.headers[.retryAfter] != nil)
                return sam
            }
            #expect(harness.simulator.channels(of: TestServer.bundleID).isEmpty)

            try await harness.withServices {
                try await eventually("the push-to-start") { !harness.simulator.deliveries(to: token(200)).isEmpty }
                try await harness.api { api in
                    let registered = try await api.send(.post, "/v1/adventures/\(fixture.adventureID)/activities", key: sam.key,
                                                        body: #"{"activityID": "sam-activity", "pushToken": "\#(token(201))", "frequentPushesEnabled": false, "locale": "en-US"}"#)
                    try #require(registered.status == 201, "\(registered)")
                }
                try await harness.playToEnd(id)
            }
            let decided = try await harness.store.outbox(of: id).filter { $0.message.target == .liveActivity("sam-activity") }
            let received = harness.simulator.deliveries(to: token(201))
            #expect(received.map(\.payload) == decided.map(\.message.payload))
            #expect(received.count > 10)
            try Self.expectAFollowersView(received.map(\.payload), language: "en", strings: harness.resources.content.strings,
                                          device: "Sam's phone")
        }
    }

    /// At start the keeper deletes the app's channels no node knows (left by a crash
    /// between making one and storing its id), and keeps those it knows.
    @Test(arguments: StoreEngine.available) func channelsNobodyKnowsAreDeletedAtStart(engine: StoreEngine) async throws {
        try await DeliveryHarness.run(engine) { harness in
            let fixture = try await harness.api { try await Fixture.make($0) }
            let watcher = try await harness.api { try await Self.newPlayer($0, "Vy") }
            let followed = try await harness.api { api in
                try await Self.followOnChannel(api, harness, fixture: fixture, key: watcher.key, locale: "en", device: "vy-phone")
            }
            let known = try #require(followed.json["channel"]["id"].string)
            let orphan = try #require(try await harness.client.createChannel(
                bundleID: TestServer.bundleID, storagePolicy: .mostRecentMessageStored, requestID: nil).value)
            #expect(harness.simulator.channels(of: TestServer.bundleID).count == 2)
            try await harness.withServices {
                try await eventually("the orphan deleted") { harness.simulator.channel(orphan) == nil }
            }
            #expect(harness.simulator.channels(of: TestServer.bundleID).map(\.id.rawValue) == [known])
        }
    }

    /// APNs loses a channel mid-adventure: the next broadcast is answered
    /// ChannelNotRegistered, the channel is made again, and a follower asking again
    /// gets the new one and hears the rest.
    @Test func aChannelAPNsLostIsMadeAgain() async throws {
        try await DeliveryHarness.run(.sqlite) { harness in
            let fixture = try await harness.api { try await Fixture.make($0) }
            let id = AdventureID(fixture.adventureID)
            let watcher = try await harness.api { try await Self.newPlayer($0, "Vy") }
            let first = try await harness.api { api in
                try await Self.followOnChannel(api, harness, fixture: fixture, key: watcher.key, locale: "en", device: "vy-phone")
            }
            let lost = BroadcastChannelID(try #require(first.json["channel"]["id"].string))
            let remade = RemadeChannel()
            try await harness.withServices {
                try await harness.playToEnd(id) { tick in
                    if tick == 3 { harness.simulator.removeChannel(lost) }
                    if remade.id == nil, tick > 3, let channel = try await harness.store.followerChannels(of: id).first,
                       channel.state == .open, let apnsID = channel.apnsID, apnsID != lost {
                        let again = try await harness.api { api in
                            try await Self.followOnChannel(api, harness, fixture: fixture, key: watcher.key, locale: "en",
                                                           device: "vy-phone")
                        }
                        #expect(again.json["channel"]["id"].string == apnsID.rawValue)
                        remade.id = apnsID
                    }
                }
            }
            let channel = try #require(remade.id, "the channel was not made again")
            let received = harness.simulator.deliveries(to: "vy-phone")
            #expect(received.contains { $0.route == .channel(lost) })
            #expect(received.last?.route == .channel(channel))
            let log = try await harness.store.pushLog(of: id)
            #expect(log.contains { $0.destination == .channel(lost) && $0.reason == "ChannelNotRegistered" })
            try Self.expectAFollowersView(received.map(\.payload), language: "en", strings: harness.resources.content.strings,
                                          device: "vy-phone")
        }
    }
}

/// The channel made again, as the test saw it from the ticker's hook.
final class RemadeChannel: @unchecked Sendable {
    private let lock = NSLock()
    private var value: BroadcastChannelID?

    var id: BroadcastChannelID? {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}

extension DeviceDelivery {
    var aps: [String: Any] {
        ((try? JSONSerialization.jsonObject(with: payload)) as? [String: Any])?["aps"] as? [String: Any] ?? [:]
    }
}
