import Foundation
import Game
import PushPolicy
import Vocabulary

/// What became of a claimed push.
public enum PushOutcome: Hashable, Sendable {
    /// APNs accepted it.
    case delivered(apnsID: String?, status: Int = 200, attempts: Int = 1)
    /// APNs answered that the token is no longer valid (410 `Unregistered`,
    /// `BadDeviceToken`, `ExpiredToken`); `since` is APNs' timestamp, if it gave one.
    case tokenInvalid(status: Int, reason: String, since: Date?, apnsID: String? = nil, attempts: Int = 1)
    /// APNs answered that the broadcast channel does not exist (ChannelNotRegistered,
    /// BadChannelId): the channel is made again while its adventure runs.
    case channelGone(status: Int, reason: String, apnsID: String? = nil, attempts: Int = 1)
    /// It may succeed later (429, 5xx, a dropped connection): send again at `at`,
    /// unless it is supersedable and a newer push to its target was queued meanwhile.
    case retryLater(at: Date, reason: String)
    /// Retrying will not help (bad payload, bad topic), or the dispatcher gave up.
    case rejected(status: Int?, reason: String, apnsID: String? = nil, attempts: Int = 1)
}

public struct PushResult: Hashable, Sendable {
    public var push: ClaimedPush
    public var outcome: PushOutcome

    public init(_ push: ClaimedPush, _ outcome: PushOutcome) {
        self.push = push
        self.outcome = outcome
    }
}
