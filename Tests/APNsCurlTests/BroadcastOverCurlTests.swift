import APNs
@testable import APNsCurl
import APNsSimulator
import Foundation
import PushVocabulary
import Testing

/// Channel management and broadcasts over real TLS and HTTP/2: the APNs client on
/// the curl transport, the simulator's push and management listeners.
@Suite struct BroadcastOverCurlTests {
    static let bundleID = SimulatorFixture.bundleID

    static func update(_ text: String, timestamp: Int = 1_700_000_000) -> Data {
        Data(#"{"aps":{"timestamp":\#(timestamp),"event":"update","content-state":{"currentHealthLevel":0.5,"eventDescription":"\#(text)"}}}"#.utf8)
    }

    static func pushToStart(channel: BroadcastChannelID) -> Data {
        Data(#"""
        {"aps":{"timestamp":1700000000,"event":"start","content-state":{"currentHealthLevel":1.0,"eventDescription":"Go!"},"attributes-type":"AdventureAttributes","attributes":{"heroID":"octo"},"alert":{"title":{"loc-key":"alert.adventureStarted.title"},"sound":"AdventureStart.caf"},"input-push-channel":"\#(channel.rawValue)"}}
        """#.utf8)
    }

    func broadcast(_ client: APNsClient, _ channel: BroadcastChannelID, _ text: String, expiration: Int = 0) async throws -> APNsChannelAnswer<Void> {
        try await client.broadcast(APNsBroadcastRequest(channelID: channel, bundleID: Self.bundleID, priority: 10, expiration: expiration,
                                                        payload: Self.update(text)))
    }

    func created(_ client: APNsClient, _ policy: MessageStoragePolicy) async throws -> BroadcastChannelID {
        let answer = try await client.createChannel(bundleID: Self.bundleID, storagePolicy: policy)
        #expect(answer.outcome == .succeeded)
        #expect(answer.response?.status == 201)
        return try #require(answer.value)
    }

    /// The description in each payload `device` received, in order.
    func descriptions(_ simulator: APNsSimulator, _ device: String) -> [String] {
        simulator.deliveries(to: device).compactMap { delivery in
            let payload = try? JSONSerialization.jsonObject(with: delivery.payload) as? [String: Any]
            let state = (payload?["aps"] as? [String: Any])?["content-state"] as? [String: Any]
            return state?["eventDescription"] as? String
        }
    }

    @Test func channelsAreCreatedReadListedAndDeleted() async throws {
        let fixture = try await SimulatorFixture.start()
        let client = fixture.client(try fixture.transport())
        let stored = try await created(client, .mostRecentMessageStored)
        let unstored = try await created(client, .noMessageStored)
        #expect(fixture.simulator.channels().map(\.id) == [stored, unstored])

        let read = try await client.channelConfiguration(unstored, bundleID: Self.bundleID)
        #expect(read.value == BroadcastChannelConfiguration(storagePolicy: .noMessageStored))
        #expect(try await client.channelConfiguration(stored, bundleID: Self.bundleID).value?.storagePolicy == .mostRecentMessageStored)
        #expect(try await client.allChannels(bundleID: Self.bundleID).value == [stored, unstored])

        let deleted = try await client.deleteChannel(stored, bundleID: Self.bundleID)
        #expect(deleted.outcome == .succeeded)
        #expect(deleted.response?.status == 204)
        #expect(try await client.allChannels(bundleID: Self.bundleID).value == [unstored])
        #expect(try await client.channelConfiguration(stored, bundleID: Self.bundleID).outcome == .channelGone(.channelNotRegistered))
        #expect(try await client.deleteChannel(stored, bundleID: Self.bundleID).outcome == .channelGone(.channelNotRegistered))
        await client.shutdown()
        try await fixture.shutdown()
    }

    @Test func aBroadcastReachesTheSubscribedDevicesOnly() async throws {
        let fixture = try await SimulatorFixture.start()
        let client = fixture.client(try fixture.transport())
        let channel = try await created(client, .noMessageStored)
        let other = try await created(client, .noMessageStored)
        // One device subscribes by push-to-start, one as its app would, one listens on another channel.
        let startedByPush = SimulatorFixture.deviceToken(1)
        let start = try await client.send(.liveActivity(deviceToken: startedByPush, bundleID: Self.bundleID, priority: 10,
                                                        payload: Self.pushToStart(channel: channel)))
        #expect(start.outcome == .delivered(apnsID: start.response?.apnsID))
        try fixture.simulator.subscribe(device: "phone-app", to: channel)
        try fixture.simulator.subscribe(device: "phone-elsewhere", to: other)

        #expect(try await broadcast(client, channel, "Boss hit!").outcome == .succeeded)
        #expect(try await broadcast(client, channel, "Boss down!").outcome == .succeeded)
        #expect(descriptions(fixture.simulator, startedByPush) == ["Go!", "Boss hit!", "Boss down!"])
        #expect(descriptions(fixture.simulator, "phone-app") == ["Boss hit!", "Boss down!"])
        #expect(descriptions(fixture.simulator, "phone-elsewhere").isEmpty)
        #expect(fixture.simulator.acceptedBroadcasts().map(\.devicesReached) == [2, 2])
        #expect(fixture.simulator.acceptedBroadcasts().map(\.priority) == [10, 10])
        #expect(fixture.simulator.acceptedCount == 1)  // the push-to-start; broadcasts are counted apart
        // What the live page asks: of these ids, which were accepted, and how many devices each reached.
        let startID = try #require(start.response?.apnsID)
        let broadcastIDs = fixture.simulator.acceptedBroadcasts().map(\.requestID)
        let unknown = UUID().uuidString.lowercased()
        #expect(fixture.simulator.devicesReached(byAccepted: [startID, unknown] + broadcastIDs)
                == Dictionary(uniqueKeysWithValues: [(startID, 1)] + broadcastIDs.map { ($0, 2) }))
        #expect(fixture.simulator.devicesReached(byAccepted: [unknown]).isEmpty)
        await client.shutdown()
        try await fixture.shutdown()
    }

    @Test func aLateSubscriberGetsWhatTheChannelsPolicyStored() async throws {
        let fixture = try await SimulatorFixture.start()
        let client = fixture.client(try fixture.transport())
        let stored = try await created(client, .mostRecentMessageStored)
        let unstored = try await created(client, .noMessageStored)
        let inAnHour = Int(Date().timeIntervalSince1970) + 3600
        for text in ["first", "latest"] {
            #expect(try await broadcast(client, stored, text, expiration: inAnHour).outcome == .succeeded)
            #expect(try await broadcast(client, unstored, text).outcome == .succeeded)
        }
        // A no-storage channel takes only expiration 0.
        #expect(try await broadcast(client, unstored, "refused", expiration: inAnHour).outcome == .rejected(.badExpirationDate))

        let fromStored = try fixture.simulator.subscribe(device: "late-1", to: stored)
        let fromUnstored = try fixture.simulator.subscribe(device: "late-2", to: unstored)
        #expect(fromStored.map(\.fromStorage) == [true])
        #expect(descriptions(fixture.simulator, "late-1") == ["latest"])
        #expect(fromUnstored.isEmpty)
        #expect(descriptions(fixture.simulator, "late-2").isEmpty)
        await client.shutdown()
        try await fixture.shutdown()
    }

    @Test func faultsOfChannelsAreInjectedAndClassified() async throws {
        let fixture = try await SimulatorFixture.start()
        let client = fixture.client(try fixture.transport())
        try fixture.simulator.failNext(1, reason: .tooManyRequests, of: .channelManagement)
        let created = try await client.createChannel(bundleID: Self.bundleID, storagePolicy: .noMessageStored)
        #expect(created.outcome == .succeeded)
        #expect(created.attempts == 2)
        let channel = try #require(created.value)

        // A fault aimed at broadcasts leaves device pushes alone.
        try fixture.simulator.failNext(2, reason: .internalServerError, of: .broadcast)
        #expect(try await client.send(SimulatorFixture.liveActivity(3)).attempts == 1)
        let retried = try await broadcast(client, channel, "after two failures")
        #expect(retried.outcome == .succeeded)
        #expect(retried.attempts == 3)
        #expect(fixture.simulator.rejected().filter(\.injected).map(\.kind) == [.channelManagement, .broadcast, .broadcast])

        try fixture.simulator.failNext(4, status: 503, reason: .serviceUnavailable, of: .broadcast)
        let unavailable = try await broadcast(client, channel, "never")
        #expect(unavailable.outcome == .retryLater(.serviceUnavailable))
        #expect(unavailable.attempts == 4)

        fixture.simulator.removeChannel(channel)
        let gone = try await broadcast(client, channel, "to nobody")
        #expect(gone.outcome == .channelGone(.channelNotRegistered))
        #expect(gone.attempts == 1)

        fixture.simulator.setBroadcastCapability(false, bundleID: Self.bundleID)
        #expect(try await client.allChannels(bundleID: Self.bundleID).outcome == .rejected(.featureNotEnabled))
        await client.shutdown()
        try await fixture.shutdown()
    }

    @Test func oneTransportCarriesBothOriginsOnAConnectionEach() async throws {
        let fixture = try await SimulatorFixture.start()
        // One pooled transfer for everything: methods must not leak from one request to the next.
        let transport = try fixture.transport(CurlTransportConfiguration(maximumConnectionsPerHost: 1, maximumRequestsInFlight: 1))
        let client = fixture.client(transport)
        let first = try await created(client, .mostRecentMessageStored)
        #expect(try await client.channelConfiguration(first, bundleID: Self.bundleID).outcome == .succeeded)
        #expect(try await client.send(SimulatorFixture.liveActivity(1)).attempts == 1)
        #expect(try await client.deleteChannel(first, bundleID: Self.bundleID).outcome == .succeeded)
        let second = try await created(client, .noMessageStored)
        #expect(try await client.allChannels(bundleID: Self.bundleID).value == [second])
        #expect(try await broadcast(client, second, "after a delete").outcome == .succeeded)
        #expect(try await client.send(SimulatorFixture.liveActivity(2)).attempts == 1)

        // Many at once, both hosts.
        let wide = try fixture.transport(CurlTransportConfiguration(maximumConnectionsPerHost: 1))
        let busy = fixture.client(wide)
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for number in 0..<40 {
                group.addTask {
                    if number.isMultiple(of: 4) {
                        return try await busy.allChannels(bundleID: Self.bundleID).outcome == .succeeded
                    }
                    if case .delivered = try await busy.send(SimulatorFixture.liveActivity(100 + number)).outcome { return true }
                    return false
                }
            }
            for try await succeeded in group { #expect(succeeded) }
        }
        #expect(fixture.simulator.rejectedCount == 0)
        #expect(fixture.simulator.acceptedCount == 2 + 30)
        #expect(wide.connectionsOpened == 2)
        await client.shutdown()
        await busy.shutdown()
        #expect(fixture.simulator.connectionsAccepted == 4)
        try await fixture.shutdown()
    }

    @Test func theDeviceSideEndpointsPlayTheApp() async throws {
        let fixture = try await SimulatorFixture.start()
        let transport = try fixture.transport()
        let client = fixture.client(transport)
        let channel = try await created(client, .mostRecentMessageStored)
        #expect(try await broadcast(client, channel, "stored", expiration: Int(Date().timeIntervalSince1970) + 600).outcome == .succeeded)
        let base = fixture.simulator.baseURL
        let subscribed = try await transport.send(APNsHTTPRequest(
            url: base + "/simulator/subscriptions", headers: [],
            body: Data(#"{"device":"phone-9","channel":"\#(channel.rawValue)"}"#.utf8)))
        #expect(subscribed.status == 201)
        #expect(String(decoding: subscribed.body, as: UTF8.self) == #"{"fromStorage":1}"#)
        let unknown = try await transport.send(APNsHTTPRequest(
            url: base + "/simulator/subscriptions", headers: [], body: Data(#"{"device":"phone-9","channel":"bm9uZQ=="}"#.utf8)))
        #expect(unknown.status == 404)
        #expect(APNsResponse(unknown).reason == .channelNotRegistered)

        func setOnline(_ online: Bool) async throws -> APNsHTTPResponse {
            try await transport.send(APNsHTTPRequest(url: base + "/simulator/devices/phone-9/online", headers: [],
                                                     body: Data(#"{"online":\#(online)}"#.utf8)))
        }
        #expect(try await transport.send(APNsHTTPRequest(method: .get, url: base + "/simulator/devices/phone-9/online", headers: []))
            .status == 405)
        #expect(try await transport.send(APNsHTTPRequest(url: base + "/simulator/subscriptions", headers: [], body: Data("{}".utf8)))
            .status == 400)

        // Away while a broadcast goes out, back for what was stored.
        #expect(try await setOnline(false).status == 200)
        #expect(try await broadcast(client, channel, "while away", expiration: Int(Date().timeIntervalSince1970) + 600).outcome == .succeeded)
        #expect(fixture.simulator.acceptedBroadcasts().last?.devicesReached == 0)
        let back = try await setOnline(true)
        #expect(String(decoding: back.body, as: UTF8.self) == #"{"fromStorage":1}"#)

        let deliveries = try await transport.send(APNsHTTPRequest(method: .get, url: base + "/simulator/devices/phone-9/deliveries",
                                                                  headers: []))
        #expect(deliveries.status == 200)
        let items = try #require(try JSONSerialization.jsonObject(with: deliveries.body) as? [[String: Any]])
        #expect(items.count == 2)
        #expect(items.first?["channel"] as? String == channel.rawValue)
        #expect(items.map { $0["fromStorage"] as? Bool } == [true, true])
        await client.shutdown()
        try await fixture.shutdown()
    }
}
