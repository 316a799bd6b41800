import Foundation
import Vocabulary

/// What following adventures may cost: how many followers get pushes of their
/// own, how many broadcast channels the app keeps, and how the server looks after
/// them on APNs.
public struct FollowerSettings: Hashable, Sendable {
    /// Followers per adventure whose app cannot listen on a channel (before iOS
    /// 18): each costs a push per update, as a member does. Beyond it a follow is
    /// refused with 409.
    public var tokenFollowersPerAdventure: Int
    /// Channels the app may have at once across every node, at most Apple's 10,000
    /// per app and environment; lower it where another server shares the bundle id
    /// and environment. A follower whose adventure needs a channel beyond it gets
    /// 503 with `Retry-After`.
    public var channelLimit: Int
    /// The storage policy of the channels the server makes: the most recent
    /// broadcast kept for a device that comes back or starts listening later, or
    /// nothing kept (then every broadcast is sent with `apns-expiration: 0`).
    public var channelStoragePolicy: MessageStoragePolicy
    /// Whether the server deletes the app's channels on APNs that no node knows
    /// (left by a crash between making one and storing its id). Turn it off when
    /// another server makes channels for the same bundle id and environment.
    public var deletesUnknownChannels: Bool
    /// An unknown channel seen while another channel was being made is deleted only
    /// if it is still unknown this long after: longer than any make takes.
    public var unknownChannelGrace: Duration
    /// How often the channel keeper looks for channels to make, delete or sweep.
    public var keeperInterval: Duration
    /// How long a follow request waits for a channel another request is making
    /// before answering 503 with `Retry-After`.
    public var channelWait: Duration

    public static let appleChannelLimit = 10_000

    public init(tokenFollowersPerAdventure: Int = 20, channelLimit: Int = FollowerSettings.appleChannelLimit,
                channelStoragePolicy: MessageStoragePolicy = .mostRecentMessageStored, deletesUnknownChannels: Bool = true,
                unknownChannelGrace: Duration = .seconds(600), keeperInterval: Duration = .seconds(2),
                channelWait: Duration = .seconds(3)) {
        self.tokenFollowersPerAdventure = tokenFollowersPerAdventure
        self.channelLimit = channelLimit
        self.channelStoragePolicy = channelStoragePolicy
        self.deletesUnknownChannels = deletesUnknownChannels
        self.unknownChannelGrace = unknownChannelGrace
        self.keeperInterval = keeperInterval
        self.channelWait = channelWait
    }

    public var problems: [ConfigurationProblem] {
        var problems: [ConfigurationProblem] = []
        func require(_ ok: Bool, _ setting: String, _ message: String) {
            if !ok { problems.append(ConfigurationProblem(setting: setting, message: message)) }
        }
        require((0...10_000).contains(tokenFollowersPerAdventure), "followers.tokenFollowersPerAdventure",
                "must be 0…10000, not \(tokenFollowersPerAdventure)")
        require((0...Self.appleChannelLimit).contains(channelLimit), "followers.channelLimit",
                "must be 0…\(Self.appleChannelLimit) (APNs keeps at most \(Self.appleChannelLimit) channels per app and environment), not \(channelLimit)")
        require(unknownChannelGrace >= .seconds(60), "followers.unknownChannelGrace", "must be at least a minute")
        require(keeperInterval >= .milliseconds(1) && keeperInterval <= .seconds(60), "followers.keeperInterval",
                "must be 1 ms…60 s")
        require(channelWait >= .zero && channelWait <= .seconds(30), "followers.channelWait", "must be 0…30 s")
        return problems
    }
}
