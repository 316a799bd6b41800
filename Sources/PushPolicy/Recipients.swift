import Foundation
import Game
import Vocabulary
import Wire

/// A running Live Activity of one player's hero, as the app registered it.
public struct LiveActivityRecipient: Hashable, Codable, Sendable {
    public var activityID: ActivityID
    public var player: PlayerID
    public var hero: HeroID
    /// `frequentPushesEnabled` as the app read it after the activity started;
    /// fixed for the activity's life.
    public var frequentUpdates: Bool
    /// Language of the fallback description (a string catalog language).
    public var language: String

    public init(activityID: ActivityID, player: PlayerID, hero: HeroID, frequentUpdates: Bool, language: String = "en") {
        self.activityID = activityID
        self.player = player
        self.hero = hero
        self.frequentUpdates = frequentUpdates
        self.language = language
    }
}

/// A party member's device that registered a push-to-start token.
public struct PushToStartRecipient: Hashable, Codable, Sendable {
    public var player: PlayerID
    public var hero: HeroID
    public var language: String

    public init(player: PlayerID, hero: HeroID, language: String = "en") {
        self.player = player
        self.hero = hero
        self.language = language
    }
}

/// An adventure's broadcast channel for its followers of one language (iOS 18):
/// one push to it reaches every follower's device that listens on it.
public struct FollowerChannelRecipient: Hashable, Codable, Sendable {
    public var channel: FollowerChannelID
    /// Every follower on the channel reads this language.
    public var language: String
    /// Fixed when APNs made the channel: a channel that stores nothing takes only
    /// `apns-expiration: 0`.
    public var storagePolicy: MessageStoragePolicy

    public init(channel: FollowerChannelID, language: String, storagePolicy: MessageStoragePolicy) {
        self.channel = channel
        self.language = language
        self.storagePolicy = storagePolicy
    }
}

/// The Live Activity of a follower whose app cannot listen on a channel (before
/// iOS 18): it gets the followers' pushes to its own token.
public struct FollowerActivityRecipient: Hashable, Codable, Sendable {
    public var activityID: ActivityID
    public var player: PlayerID
    public var frequentUpdates: Bool
    public var language: String

    public init(activityID: ActivityID, player: PlayerID, frequentUpdates: Bool, language: String = "en") {
        self.activityID = activityID
        self.player = player
        self.frequentUpdates = frequentUpdates
        self.language = language
    }
}

/// Who watches an adventure without playing in it: players outside the party.
/// They own no hero, so their pushes carry the party's view, in their language.
public struct Followers: Hashable, Sendable {
    public var channels: [FollowerChannelRecipient]
    public var activities: [FollowerActivityRecipient]

    public init(channels: [FollowerChannelRecipient] = [], activities: [FollowerActivityRecipient] = []) {
        self.channels = channels
        self.activities = activities
    }

    public static let none = Followers()

    public var isEmpty: Bool { channels.isEmpty && activities.isEmpty }
}

/// A follower's device that the server wakes with a push-to-start (an app before
/// iOS 18, which cannot listen on a channel).
public struct FollowerStartRecipient: Hashable, Codable, Sendable {
    public var player: PlayerID
    public var language: String

    public init(player: PlayerID, language: String = "en") {
        self.player = player
        self.language = language
    }
}

/// One push the policy decided on, with the reason for its priority.
public struct PushDecision: Hashable, Sendable {
    public enum Target: Hashable, Sendable {
        case liveActivity(id: ActivityID)
        case pushToStart(player: PlayerID)
        /// A broadcast to every device listening on a followers' channel.
        case followerChannel(id: FollowerChannelID)
    }

    public var target: Target
    /// Every decision is a Live Activity push: a start (push-to-start), an update or an end.
    public var pushType: PushType { .liveactivity }
    /// Whose device it goes to; nil for a broadcast, which reaches many.
    public var player: PlayerID?
    /// The hero whose activity it is; nil for a follower's, who owns none.
    public var hero: HeroID?
    public var priority: Priority
    /// Why this priority: the rule that decided it, and a demotion if any.
    public var reason: String
    /// It would have been high priority but the activity's budget was used up.
    public var demoted: Bool
    /// `apns-expiration`, unix seconds: past it, the push is not worth delivering.
    public var expiration: Int
    /// Fixed with `body` when the decision is made, so the two cannot drift apart.
    public let payload: LiveActivityPayload
    /// `payload` as the exact bytes APNs gets (`PayloadEncoder`), encoded once
    /// when the decision is made.
    public let body: Data

    /// An alert must reach the phone even when a newer state is queued behind it.
    public var hasAlert: Bool { payload.alert != nil }
    /// An end takes the activity off the Lock Screen: never superseded either.
    public var isEnd: Bool { if case .end = payload.event { true } else { false } }

    init(target: Target, player: PlayerID?, hero: HeroID?, priority: Priority, reason: String, demoted: Bool,
         expiration: Int, payload: LiveActivityPayload) throws {
        let (fitted, body) = try PayloadEncoder().fitted(payload)
        self.target = target
        self.player = player
        self.hero = hero
        self.priority = priority
        self.reason = reason
        self.demoted = demoted
        self.expiration = expiration
        self.payload = fitted
        self.body = body
    }
}
