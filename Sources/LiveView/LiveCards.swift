import Foundation
import Game
import Store
import Vocabulary
import Wire

/// One card of the live page: one phone's Lock Screen, drawn from the pushes it
/// received. A member's card follows their hero's Live Activity, from the
/// push-to-start that created it to the updates sent to its own token. A
/// followers' channel's card shows what every device listening on it shows: the
/// broadcasts to that channel. The followers whose app cannot listen on a channel
/// (before iOS 18) get one card per language, not one each: each of them gets the
/// same pushes in that language, so their phones show the same thing.
public struct LiveCard: Hashable, Sendable, Encodable {
    public enum Kind: String, Hashable, Sendable, Encodable {
        case member
        /// An adventure's broadcast channel for one language (key `channel:<id>`).
        case followerChannel
        /// The per-token followers of one language (key `followers:<language>`).
        case tokenFollowers
    }

    /// What the page knows the card by.
    public var key: String
    public var kind: Kind
    /// The hero whose Live Activity it is (a member's card).
    public var hero: String?
    /// The string-catalog language the phone localizes in; nil until the server
    /// has heard it from the app.
    public var language: String?
    /// A followers' card: how many followers it stands for now (those following
    /// on the channel, or on their own activity, in its language). APNs says
    /// nothing of how many devices a broadcast reached.
    public var followers: Int?
    /// A channel's card: the channel's state as stored (`wanted`, `creating`, `open`, `deleted`).
    public var channelState: String?

    public static func memberKey(_ hero: HeroID) -> String { "hero:\(hero.rawValue)" }
    public static func channelKey(_ channel: FollowerChannelID) -> String { "channel:\(channel.rawValue)" }
    public static func tokenFollowersKey(language: String) -> String { "followers:\(language)" }
}

/// The adventure's cards and which card each push log entry belongs to.
struct LiveCardDirectory {
    private(set) var cards: [LiveCard]
    private var heroByActivity: [ActivityID: HeroID] = [:]
    /// Followers' own activities and push-to-start devices, by the language of their card.
    private var followerLanguageByActivity: [ActivityID: String] = [:]
    private var followerLanguageByDevice: [DeviceID: String] = [:]

    init(roster: [PartyMember]) {
        cards = roster.map { LiveCard(key: LiveCard.memberKey($0.hero), kind: .member, hero: $0.hero.rawValue, language: nil) }
    }

    enum Route: Equatable {
        case card(String)
        /// An activity registered after the page learned the adventure's: look it up, `learn` it, route again.
        case unknownActivity(ActivityID)
        /// A channel, or a follower's device, the page has not heard of: read the
        /// adventure's followers again (`learn(followers:channels:)`), route again.
        case unknownFollowers
        /// Not a Live Activity push of this adventure's phones (a walkie-talkie push).
        case none
    }

    /// The card of a push to `target` whose body is `payload`.
    func route(_ target: PushTarget, payload: Data) -> Route {
        switch target {
        case .liveActivity(let activity):
            if let hero = heroByActivity[activity] { return .card(LiveCard.memberKey(hero)) }
            if let language = followerLanguageByActivity[activity] { return .card(LiveCard.tokenFollowersKey(language: language)) }
            return .unknownActivity(activity)
        case .pushToStart(let device):
            // The device is the phone; the hero its new activity shows is in the attributes it received.
            guard let payload = try? JSONDecoder().decode(LiveActivityPayload.self, from: payload),
                  let hero = payload.attributes?.heroID else { return .none }
            if hero.isEmpty {
                // No hero of its own: a follower's device, woken to show the party.
                guard let language = followerLanguageByDevice[device] else { return .unknownFollowers }
                return .card(LiveCard.tokenFollowersKey(language: language))
            }
            guard cards.contains(where: { $0.key == LiveCard.memberKey(HeroID(hero)) }) else { return .none }
            return .card(LiveCard.memberKey(HeroID(hero)))
        case .followerChannel(let channel):
            let key = LiveCard.channelKey(channel)
            return cards.contains { $0.key == key } ? .card(key) : .unknownFollowers
        case .pushToTalk:
            return .none
        }
    }

    /// What the app told the server about a hero's activity (or, before it has
    /// one, its device): the card, if that changed it.
    mutating func learn(hero: HeroID, language: String, activity: ActivityID? = nil) -> LiveCard? {
        if let activity { heroByActivity[activity] = hero }
        guard let index = cards.firstIndex(where: { $0.key == LiveCard.memberKey(hero) }),
              cards[index].language != language else { return nil }
        cards[index].language = language
        return cards[index]
    }

    /// An activity the page had not heard of, as the store keeps it: a member's,
    /// or a follower's own (no hero), which joins its language's followers' card.
    mutating func learn(_ activity: LiveActivity) -> LiveCard? {
        guard let hero = activity.hero else { return learn(followerActivity: activity.id, language: activity.locale) }
        return learn(hero: hero, language: activity.locale, activity: activity.id)
    }

    /// A per-token follower's activity: the card of its language, if it is new.
    mutating func learn(followerActivity activity: ActivityID, language: String) -> LiveCard? {
        followerLanguageByActivity[activity] = language
        return upsert(LiveCard(key: LiveCard.tokenFollowersKey(language: language), kind: .tokenFollowers, language: language,
                               followers: cards.first { $0.key == LiveCard.tokenFollowersKey(language: language) }?.followers ?? 0))
    }

    /// The adventure's followers and channels as the store has them now: the
    /// followers' cards that are new or changed (their counts, a channel's state).
    mutating func learn(followers: [Follower], channels: [FollowerChannel]) -> [LiveCard] {
        var changed: [LiveCard] = []
        for channel in channels {
            let count = followers.count { $0.delivery == .channel && $0.language == channel.language }
            if let card = upsert(LiveCard(key: LiveCard.channelKey(channel.id), kind: .followerChannel, language: channel.language,
                                          followers: count, channelState: channel.state.rawValue)) {
                changed.append(card)
            }
        }
        let tokenFollowers = followers.filter { $0.delivery == .token }
        for follower in tokenFollowers {
            if let device = follower.device { followerLanguageByDevice[device] = follower.language }
        }
        // A language's card once a follower of it has a device or an activity; kept (at 0) when they all left.
        let languages = Set(tokenFollowers.map(\.language)).union(cards.filter { $0.kind == .tokenFollowers }.compactMap(\.language))
        for language in languages.sorted() {
            let count = tokenFollowers.count { $0.language == language }
            if let card = upsert(LiveCard(key: LiveCard.tokenFollowersKey(language: language), kind: .tokenFollowers,
                                          language: language, followers: count)) {
                changed.append(card)
            }
        }
        return changed
    }

    /// Adds `card` or replaces the one of its key: the card, unless nothing changed.
    private mutating func upsert(_ card: LiveCard) -> LiveCard? {
        guard let index = cards.firstIndex(where: { $0.key == card.key }) else {
            cards.append(card)
            return card
        }
        guard cards[index] != card else { return nil }
        cards[index] = card
        return card
    }

    func knows(_ activity: ActivityID) -> Bool { heroByActivity[activity] != nil || followerLanguageByActivity[activity] != nil }
}
