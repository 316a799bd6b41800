import Foundation
import Game
import Wire

/// A running Live Activity of one player's hero, as the app registered it.
public struct LiveActivityRecipient: Hashable, Codable, Sendable {
    public var activityID: String
    public var player: PlayerID
    public var hero: HeroID
    /// `frequentPushesEnabled` as the app read it after the activity started;
    /// fixed for the activity's life.
    public var frequentUpdates: Bool
    /// Language of the fallback description (a string catalog language).
    public var language: String

    public init(activityID: String, player: PlayerID, hero: HeroID, frequentUpdates: Bool, language: String = "en") {
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

/// One push the policy decided on, with the reason for its priority.
public struct PushDecision: Hashable, Sendable {
    public enum Target: Hashable, Sendable {
        case liveActivity(id: String)
        case pushToStart(player: PlayerID)
    }

    public var target: Target
    public var player: PlayerID
    public var hero: HeroID
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

    init(target: Target, player: PlayerID, hero: HeroID, priority: Priority, reason: String, demoted: Bool,
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
