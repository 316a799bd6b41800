import APNs
@testable import APNsSimulator
import Foundation
import Testing
import Vocabulary

/// What the simulator does with channels once a request passed its checks:
/// fan-out to the subscribed devices, storage for late and offline ones.
@Suite struct ChannelRegistryTests {
    @Test func aBroadcastReachesEverySubscribedDeviceAndNoOther() throws {
        var world = RegistryWorld()
        try world.aBroadcastReachesEverySubscribedDeviceAndNoOther()
    }

    @Test func aLateSubscriberGetsTheMostRecentStoredBroadcastOnlyWhereItIsStored() throws {
        var world = RegistryWorld()
        try world.aLateSubscriberGetsTheMostRecentStoredBroadcastOnlyWhereItIsStored()
    }

    @Test func anOfflineDeviceGetsTheNewestStoredBroadcastWhenItComesBack() throws {
        var world = RegistryWorld()
        try world.anOfflineDeviceGetsTheNewestStoredBroadcastWhenItComesBack()
    }

    @Test func storageEndsAtTheExpirationOrAfterEightHoursAndExpirationZeroStoresNothing() throws {
        var world = RegistryWorld()
        try world.storageEndsAtTheExpirationOrAfterEightHoursAndExpirationZeroStoresNothing()
    }

    @Test func aDeletedOrForeignChannelCannotBeSubscribedTo() throws {
        var world = RegistryWorld()
        try world.aDeletedOrForeignChannelCannotBeSubscribedTo()
    }

    @Test func listAndReadAnswerAsAPNsDoes() throws {
        var world = RegistryWorld()
        try world.listAndReadAnswerAsAPNsDoes()
    }
}

/// A registry with one stored, one unstored and one other app's channel, and the checks run on it.
struct RegistryWorld {
    static let origin = RequestOrigin(connectionNumber: 1, streamID: 1)
    static let claims = ProviderTokenClaims(keyID: "K", teamID: "T", issuedAt: 0)

    var registry: ChannelRegistry
    let stored: BroadcastChannelID
    let unstored: BroadcastChannelID
    let foreign: BroadcastChannelID

    init() {
        (registry, stored, unstored, foreign) = ChannelFixtures.registry()
    }

    /// Broadcasts `text` (as the payload's description) on `channel` at `now`.
    mutating func broadcast(_ text: String, on channel: BroadcastChannelID, expiration: Int? = nil, at now: Date = Fixtures.now) throws {
        let payload = #"{"aps":{"event":"update","timestamp":1,"content-state":{"eventDescription":"\#(text)"}}}"#
        let request = ChannelRequest(bundleID: Fixtures.bundleID,
                                     operation: .broadcast(ValidBroadcast(channelID: channel, priority: 5, expiration: expiration)),
                                     requestID: nil, provider: Self.claims)
        let answer = try registry.apply(request, body: Data(payload.utf8), origin: Self.origin, requestID: text, now: now)
        #expect(answer.status == 200)
    }

    func received(_ device: String) -> [String] { registry.channelDeliveries(to: device).map(\.requestID) }

    mutating func aBroadcastReachesEverySubscribedDeviceAndNoOther() throws {
        try registry.subscribe("phone-a", to: stored, bundleID: nil, now: Fixtures.now)
        try registry.subscribe("PHONE-B", to: stored, bundleID: Fixtures.bundleID, now: Fixtures.now)
        try registry.subscribe("phone-c", to: unstored, bundleID: nil, now: Fixtures.now)
        try broadcast("first", on: stored)
        try broadcast("second", on: stored)
        #expect(received("phone-a") == ["first", "second"])
        #expect(received("phone-b") == ["first", "second"])
        #expect(received("phone-c").isEmpty)
        #expect(registry.broadcasts.map(\.devicesReached) == [2, 2])
        #expect(registry.channels[stored]?.subscribers == ["phone-a", "phone-b"])
    }

    mutating func aLateSubscriberGetsTheMostRecentStoredBroadcastOnlyWhereItIsStored() throws {
        try broadcast("old", on: stored)
        try broadcast("newest", on: stored)
        try broadcast("gone", on: unstored, expiration: 0)
        let fromStored = try registry.subscribe("late", to: stored, bundleID: nil, now: Fixtures.now + 60)
        let fromUnstored = try registry.subscribe("late", to: unstored, bundleID: nil, now: Fixtures.now + 60)
        #expect(fromStored.map(\.requestID) == ["newest"])
        #expect(fromStored.first?.fromStorage == true)
        #expect(fromUnstored.isEmpty)
        #expect(received("late") == ["newest"])
        // Subscribing again hands over nothing it already holds.
        #expect(try registry.subscribe("late", to: stored, bundleID: nil, now: Fixtures.now + 61).isEmpty)
    }

    mutating func anOfflineDeviceGetsTheNewestStoredBroadcastWhenItComesBack() throws {
        for device in ["sleepy", "awake"] {
            try registry.subscribe(device, to: stored, bundleID: nil, now: Fixtures.now)
            try registry.subscribe(device, to: unstored, bundleID: nil, now: Fixtures.now)
        }
        registry.setOnline("sleepy", false, now: Fixtures.now)
        try broadcast("stored-1", on: stored)
        try broadcast("stored-2", on: stored)
        try broadcast("unstored-1", on: unstored, expiration: 0)
        #expect(received("sleepy").isEmpty)
        #expect(registry.broadcasts.map(\.devicesReached) == [1, 1, 1])
        let caughtUp = registry.setOnline("sleepy", true, now: Fixtures.now + 10)
        #expect(caughtUp.map(\.requestID) == ["stored-2"])
        #expect(received("sleepy") == ["stored-2"])
        #expect(received("awake") == ["stored-1", "stored-2", "unstored-1"])
    }

    mutating func storageEndsAtTheExpirationOrAfterEightHoursAndExpirationZeroStoresNothing() throws {
        try broadcast("for ten minutes", on: stored, expiration: Int(Fixtures.now.timeIntervalSince1970) + 600)
        #expect(try registry.subscribe("within", to: stored, bundleID: nil, now: Fixtures.now + 599).count == 1)
        #expect(try registry.subscribe("after", to: stored, bundleID: nil, now: Fixtures.now + 600).isEmpty)

        try broadcast("for eight hours", on: stored)
        #expect(try registry.subscribe("day", to: stored, bundleID: nil, now: Fixtures.now + 8 * 3600 - 1).count == 1)
        #expect(try registry.subscribe("night", to: stored, bundleID: nil, now: Fixtures.now + 8 * 3600).isEmpty)

        try broadcast("not stored", on: stored, expiration: 0)
        #expect(try registry.subscribe("next", to: stored, bundleID: nil, now: Fixtures.now + 1).isEmpty)
    }

    mutating func aDeletedOrForeignChannelCannotBeSubscribedTo() throws {
        try registry.subscribe("phone", to: stored, bundleID: nil, now: Fixtures.now)
        let delete = ChannelRequest(bundleID: Fixtures.bundleID, operation: .delete(stored), requestID: nil, provider: Self.claims)
        #expect(try registry.apply(delete, body: Data(), origin: Self.origin, requestID: "d", now: Fixtures.now).status == 204)
        #expect(registry.subscriptions(of: "phone").isEmpty)
        #expect(registry.channels(of: Fixtures.bundleID) == [unstored])
        #expect(throws: PushRejection(.channelNotRegistered)) {
            try registry.subscribe("phone", to: stored, bundleID: nil, now: Fixtures.now)
        }
        // A push-to-start of this app naming another app's channel starts nothing.
        #expect(throws: PushRejection(.channelNotRegistered)) {
            try registry.subscribe("phone", to: foreign, bundleID: Fixtures.bundleID, now: Fixtures.now)
        }
    }

    mutating func listAndReadAnswerAsAPNsDoes() throws {
        let list = ChannelRequest(bundleID: Fixtures.bundleID, operation: .list, requestID: nil, provider: Self.claims)
        let listed = try registry.apply(list, body: Data(), origin: Self.origin, requestID: "l", now: Fixtures.now)
        let channels = try JSONSerialization.jsonObject(with: listed.body) as? [String: [String]]
        #expect(channels == ["channels": [stored.rawValue, unstored.rawValue]])
        let read = ChannelRequest(bundleID: Fixtures.bundleID, operation: .read(unstored), requestID: nil, provider: Self.claims)
        let configuration = try registry.apply(read, body: Data(), origin: Self.origin, requestID: "r", now: Fixtures.now)
        let fields = try JSONSerialization.jsonObject(with: configuration.body) as? [String: Any]
        #expect(fields?["message-storage-policy"] as? Int == 0)
        #expect(fields?["push-type"] as? String == "LiveActivity")
        #expect(stored.isWellFormed && unstored.isWellFormed && stored != unstored)
    }
}
