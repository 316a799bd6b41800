import APNs
import Foundation
import Vocabulary

/// A broadcast channel the simulator made.
public struct SimulatedChannel: Sendable {
    public let id: BroadcastChannelID
    public let bundleID: String
    public let storagePolicy: MessageStoragePolicy
    public let createdAt: Date
    /// The devices whose Live Activity listens on it.
    public internal(set) var subscribers: Set<String> = []
    /// The broadcast kept for devices that could not take it at once (most recent
    /// message stored), until it expires.
    var stored: StoredBroadcast?
}

struct StoredBroadcast: Sendable {
    var delivery: DeviceDelivery
    var expiresAt: Date
}

/// What one device received, by device token or on a channel, in order.
public struct DeviceDelivery: Sendable {
    public enum Route: Hashable, Sendable {
        case deviceToken
        case channel(BroadcastChannelID)
    }

    public var route: Route
    public var payload: Data
    public var priority: Int
    /// The push's `apns-id`, or the broadcast's `apns-request-id`.
    public var requestID: String
    /// Orders deliveries across the simulator: a later push has a larger number.
    public var sequence: Int
    public var deliveredAt: Date
    /// Held by APNs and handed over when the device subscribed or came online.
    public var fromStorage: Bool
}

/// A broadcast the simulator accepted, and how many devices it reached at once.
public struct RecordedBroadcast: Sendable, CustomStringConvertible {
    public var bundleID: String
    public var channelID: BroadcastChannelID
    public var priority: Int
    public var expiration: Int?
    public var requestID: String
    public var payload: Data
    /// Subscribed devices that were online and got it when it arrived.
    public var devicesReached: Int
    public var sequence: Int
    public var connectionNumber: Int
    public var streamID: Int
    public var receivedAt: Date

    public var description: String {
        "RecordedBroadcast(channel \(channelID), priority \(priority), apns-request-id \(requestID), "
            + "\(payload.count) bytes, reached \(devicesReached) device(s))"
    }
}

/// The simulator's channels, the devices subscribed to them, and what each device
/// got: APNs' side of broadcasts. A value kept under the simulator's lock.
public struct ChannelRegistry: Sendable {
    /// "Messages in Most Recent Message store for a maximum duration of 8 hours."
    public static let storedMessageLifetime: TimeInterval = 8 * 3600

    /// Channels one app may keep in this environment (Apple: 10,000 per app in
    /// each of development and production); CannotCreateChannelConfig beyond.
    public var limitPerApp: Int
    var recordLimit: Int
    public private(set) var channels: [BroadcastChannelID: SimulatedChannel] = [:]
    private var channelsByApp: [String: [BroadcastChannelID]] = [:]
    private var devices: [String: SimulatedDevice] = [:]
    private(set) var broadcasts: [RecordedBroadcast] = []
    private(set) var broadcastsTotal = 0
    private var lastSequence = 0

    struct SimulatedDevice {
        var online = true
        var channels: Set<BroadcastChannelID> = []
        /// The newest broadcast it holds from each channel, by sequence.
        var newest: [BroadcastChannelID: Int] = [:]
        var inbox: [DeviceDelivery] = []
    }

    public init(limitPerApp: Int = 10_000, recordLimit: Int = 100_000) {
        self.limitPerApp = limitPerApp
        self.recordLimit = recordLimit
    }

    /// A device is named by its push token or by whatever the test or demo calls it;
    /// tokens are hex in either case, so names compare without case.
    static func deviceKey(_ device: String) -> String { device.lowercased() }

    mutating func nextSequence() -> Int {
        lastSequence += 1
        return lastSequence
    }

    /// The app's channels in the order they were made.
    public func channels(of bundleID: String) -> [BroadcastChannelID] { channelsByApp[bundleID] ?? [] }

    // MARK: Requests

    /// The checks that need the channels: it exists and is this app's, the
    /// expiration suits its storage policy, the app is under its limit; then the
    /// payload (APNs looks at the channel first).
    public func check(_ request: ChannelRequest, now: Date) throws(PushRejection) {
        switch request.operation {
        case .create:
            if channels(of: request.bundleID).count >= limitPerApp { throw PushRejection(.cannotCreateChannelConfig) }
        case .read(let id), .delete(let id):
            _ = try channel(id, of: request.bundleID)
        case .list:
            break
        case .broadcast(let broadcast):
            let channel = try channel(broadcast.channelID, of: request.bundleID)
            if channel.storagePolicy == .noMessageStored, let expiration = broadcast.expiration, expiration != 0 {
                throw PushRejection(.badExpirationDate, detail: "a channel without message storage takes only apns-expiration 0")
            }
            if let rejection = request.payloadRejection { throw rejection }
        }
    }

    private func channel(_ id: BroadcastChannelID, of bundleID: String) throws(PushRejection) -> SimulatedChannel {
        guard let channel = channels[id], channel.bundleID == bundleID else { throw PushRejection(.channelNotRegistered) }
        return channel
    }

    /// Checks `request` and carries it out: the status, headers and body to answer.
    mutating func apply(_ request: ChannelRequest, body: Data, origin: RequestOrigin, requestID: String, now: Date)
        throws(PushRejection) -> (status: Int, headers: [(name: String, value: String)], body: Data)
    {
        try check(request, now: now)
        switch request.operation {
        case .create(let policy):
            let id = makeChannelID()
            channels[id] = SimulatedChannel(id: id, bundleID: request.bundleID, storagePolicy: policy, createdAt: now)
            channelsByApp[request.bundleID, default: []].append(id)
            return (201, [("apns-channel-id", id.rawValue)], Data())
        case .read(let id):
            let policy = channels[id]!.storagePolicy.rawValue
            return (200, [("content-type", "application/json")],
                    Data(#"{"message-storage-policy":\#(policy),"push-type":"\#(BroadcastChannelConfiguration.liveActivityPushType)"}"#.utf8))
        case .list:
            let list = channels(of: request.bundleID).map { #""\#($0.rawValue)""# }.joined(separator: ",")
            return (200, [("content-type", "application/json")], Data(#"{"channels":[\#(list)]}"#.utf8))
        case .delete(let id):
            remove(id)
            return (204, [], Data())
        case .broadcast(let broadcast):
            fanOut(broadcast, bundleID: request.bundleID, payload: body, origin: origin, requestID: requestID, now: now)
            return (200, [], Data())
        }
    }

    /// 16 random bytes in base64, as the ids APNs hands out look.
    private func makeChannelID() -> BroadcastChannelID {
        var generator = SystemRandomNumberGenerator()
        while true {
            let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let id = BroadcastChannelID(Data(bytes).base64EncodedString())
            if channels[id] == nil { return id }
        }
    }

    /// Forgets a channel and every subscription to it.
    mutating func remove(_ id: BroadcastChannelID) {
        guard let channel = channels.removeValue(forKey: id) else { return }
        channelsByApp[channel.bundleID]?.removeAll { $0 == id }
        for device in channel.subscribers { devices[device]?.channels.remove(id) }
    }

    /// Forgets every channel of an app (its broadcast capability was turned off).
    mutating func removeChannels(of bundleID: String) {
        for id in channels(of: bundleID) { remove(id) }
    }

    private mutating func fanOut(_ broadcast: ValidBroadcast, bundleID: String, payload: Data, origin: RequestOrigin,
                                 requestID: String, now: Date) {
        let sequence = nextSequence()
        let delivery = DeviceDelivery(route: .channel(broadcast.channelID), payload: payload, priority: broadcast.priority,
                                      requestID: requestID, sequence: sequence, deliveredAt: now, fromStorage: false)
        var reached = 0
        for device in channels[broadcast.channelID]?.subscribers ?? [] where devices[device]?.online == true {
            deliver(delivery, to: device)
            reached += 1
        }
        if channels[broadcast.channelID]?.storagePolicy == .mostRecentMessageStored {
            channels[broadcast.channelID]?.stored = Self.storage(of: delivery, expiration: broadcast.expiration, now: now)
        }
        broadcastsTotal += 1
        appendKeepingNewest(RecordedBroadcast(bundleID: bundleID, channelID: broadcast.channelID, priority: broadcast.priority,
                                              expiration: broadcast.expiration, requestID: requestID, payload: payload,
                                              devicesReached: reached, sequence: sequence, connectionNumber: origin.connectionNumber,
                                              streamID: origin.streamID, receivedAt: now),
                            to: &broadcasts, limit: recordLimit)
    }

    /// How long the newest broadcast is kept: up to 8 hours, less with an earlier
    /// `apns-expiration`. With expiration 0 ("attempts to deliver only once and
    /// doesn't store it") nothing is kept, so no older message stands in for it.
    private static func storage(of delivery: DeviceDelivery, expiration: Int?, now: Date) -> StoredBroadcast? {
        var expiresAt = now.addingTimeInterval(storedMessageLifetime)
        if let expiration {
            guard expiration != 0 else { return nil }
            expiresAt = min(expiresAt, Date(timeIntervalSince1970: TimeInterval(expiration)))
        }
        return expiresAt > now ? StoredBroadcast(delivery: delivery, expiresAt: expiresAt) : nil
    }

    private mutating func deliver(_ delivery: DeviceDelivery, to device: String) {
        guard case .channel(let channel) = delivery.route else { return }
        devices[device, default: SimulatedDevice()].newest[channel] = delivery.sequence
        appendKeepingNewest(delivery, to: &devices[device, default: SimulatedDevice()].inbox, limit: recordLimit)
    }

    // MARK: Devices

    /// A Live Activity on `device` starts listening on `channel` (the app's
    /// `Activity.request(…, pushType: .channel(id))`, or a push-to-start with
    /// `input-push-channel`). If the channel is not one of the app's (or `bundleID`
    /// is nil and the channel does not exist), the activity fails to start:
    /// ChannelNotRegistered. Returns what the device got from storage.
    @discardableResult
    mutating func subscribe(_ device: String, to channelID: BroadcastChannelID, bundleID: String?, now: Date)
        throws(PushRejection) -> [DeviceDelivery]
    {
        guard let channel = channels[channelID], bundleID == nil || channel.bundleID == bundleID else {
            throw PushRejection(.channelNotRegistered)
        }
        let key = Self.deviceKey(device)
        channels[channelID]?.subscribers.insert(key)
        devices[key, default: SimulatedDevice()].channels.insert(channelID)
        return deliverStored(to: key, from: [channelID], now: now)
    }

    /// A device goes offline (broadcasts pass it by) or comes back (it gets what
    /// its channels stored meanwhile). Returns what it got from storage.
    @discardableResult
    mutating func setOnline(_ device: String, _ online: Bool, now: Date) -> [DeviceDelivery] {
        let key = Self.deviceKey(device)
        devices[key, default: SimulatedDevice()].online = online
        guard online, let channels = devices[key]?.channels else { return [] }
        return deliverStored(to: key, from: channels.sorted(), now: now)
    }

    private mutating func deliverStored(to device: String, from channelIDs: [BroadcastChannelID], now: Date) -> [DeviceDelivery] {
        guard devices[device]?.online == true else { return [] }
        var delivered: [DeviceDelivery] = []
        for id in channelIDs {
            guard let stored = channels[id]?.stored, stored.expiresAt > now,
                  (devices[device]?.newest[id] ?? 0) < stored.delivery.sequence
            else { continue }
            var delivery = stored.delivery
            delivery.deliveredAt = now
            delivery.fromStorage = true
            deliver(delivery, to: device)
            delivered.append(delivery)
        }
        return delivered
    }

    /// What `device` got on channels, oldest first.
    func channelDeliveries(to device: String) -> [DeviceDelivery] { devices[Self.deviceKey(device)]?.inbox ?? [] }

    /// The channels `device` listens on.
    func subscriptions(of device: String) -> Set<BroadcastChannelID> { devices[Self.deviceKey(device)]?.channels ?? [] }

    mutating func forgetRecords() {
        broadcasts = []
        broadcastsTotal = 0
        for key in devices.keys { devices[key]?.inbox = [] }
    }
}

/// Keeps the newest `limit` records, trimming in batches so appends stay cheap.
func appendKeepingNewest<Record>(_ record: Record, to records: inout [Record], limit: Int) {
    records.append(record)
    let limit = max(limit, 1)
    if records.count >= limit + limit / 2 + 1 { records.removeFirst(records.count - limit) }
}
