import APNs
import Foundation
import Vocabulary

/// Broadcast channels: what the simulator holds, the devices' side (subscribing,
/// going offline), what each device received, and the faults of channels.
extension APNsSimulator {
    // MARK: Channels

    /// The channels that exist now, of one app or of all, oldest first.
    public func channels(of bundleID: String? = nil) -> [SimulatedChannel] {
        core.state.withLockedValue { state in
            state.broadcasts.channels.values.filter { bundleID == nil || $0.bundleID == bundleID }
                .sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        }
    }

    public func channel(_ id: BroadcastChannelID) -> SimulatedChannel? {
        core.state.withLockedValue { $0.broadcasts.channels[id] }
    }

    // MARK: Devices

    /// Plays the app's `Activity.request(…, pushType: .channel(id))` on `device`
    /// (any name; a push token works too): its Live Activity listens on the
    /// channel from now on. A channel that does not exist makes the activity
    /// fail to start (`ChannelNotRegistered`). Returns what the device got at
    /// once from the channel's storage (most recent message stored).
    ///
    /// A push-to-start whose `aps` names `input-push-channel` subscribes the
    /// device it was sent to (its push-to-start token) the same way.
    @discardableResult
    public func subscribe(device: String, to channel: BroadcastChannelID) throws(PushRejection) -> [DeviceDelivery] {
        let now = core.configuration.now()
        let result = core.state.withLockedValue { state in
            Result(catching: { () throws(PushRejection) -> [DeviceDelivery] in
                try state.broadcasts.subscribe(device, to: channel, bundleID: nil, now: now)
            })
        }
        return try result.get()
    }

    /// Takes a device offline (broadcasts pass it by) or back online (it gets what
    /// its channels stored meanwhile, which it returns).
    @discardableResult
    public func setOnline(_ online: Bool, device: String) -> [DeviceDelivery] {
        let now = core.configuration.now()
        return core.state.withLockedValue { $0.broadcasts.setOnline(device, online, now: now) }
    }

    /// The channels `device` listens on.
    public func subscriptions(of device: String) -> Set<BroadcastChannelID> {
        core.state.withLockedValue { $0.broadcasts.subscriptions(of: device) }
    }

    /// What `device` received, oldest first: pushes to it as a device token and
    /// broadcasts on its channels (the newest `recordLimit` of each).
    public func deliveries(to device: String) -> [DeviceDelivery] { core.deliveries(to: device) }

    // MARK: Records

    /// Accepted broadcasts in arrival order (the newest `recordLimit`), each with
    /// the number of devices it reached.
    public func acceptedBroadcasts() -> [RecordedBroadcast] { core.state.withLockedValue { $0.broadcasts.broadcasts } }

    public var acceptedBroadcastCount: Int { core.state.withLockedValue { $0.broadcasts.broadcastsTotal } }

    // MARK: Faults

    /// The channel disappears as if someone else deleted it: broadcasts to it and
    /// reads of it answer ChannelNotRegistered, its subscribers lose it.
    public func removeChannel(_ id: BroadcastChannelID) {
        core.state.withLockedValue { $0.broadcasts.remove(id) }
    }

    /// Turns an app's broadcast capability off (its requests answer
    /// FeatureNotEnabled, and, as with Apple, all its channels are deleted) or on.
    public func setBroadcastCapability(_ enabled: Bool, bundleID: String) {
        core.state.withLockedValue { state in
            if enabled {
                state.rules.broadcastDisabledBundleIDs.remove(bundleID)
            } else {
                state.rules.broadcastDisabledBundleIDs.insert(bundleID)
                state.broadcasts.removeChannels(of: bundleID)
            }
        }
    }
}

extension APNsSimulator {
    /// Of these ids — a device push's `apns-id` or a broadcast's `apns-request-id`
    /// as the simulator answered them — those it accepted, each with the devices it
    /// reached (one for a device push). Looks through the newest `recordLimit`
    /// records of each kind: an older id is reported as not accepted.
    public func devicesReached(byAccepted ids: some Sequence<String>) -> [String: Int] {
        let wanted = Set(ids)
        guard !wanted.isEmpty else { return [:] }
        return core.state.withLockedValue { state in
            var reached: [String: Int] = [:]
            for push in core.newest(state.accepted) where wanted.contains(push.apnsID) { reached[push.apnsID] = 1 }
            for broadcast in state.broadcasts.broadcasts where wanted.contains(broadcast.requestID) {
                reached[broadcast.requestID] = broadcast.devicesReached
            }
            return reached
        }
    }
}
