import Foundation
import Game
import Store
import Vocabulary
import Wire

/// One card of the live page: one phone's Lock Screen, drawn from the pushes it
/// received. A member's card follows their hero's Live Activity, from the
/// push-to-start that created it to the updates sent to its own token.
///
/// Room for more kinds: once followers listen on broadcast channels, each channel
/// gets a card of kind `followerChannel` (key `channel:<id>`), fed by the
/// broadcasts the push log holds for it; `LiveCardDirectory.route` sends them there.
public struct LiveCard: Hashable, Sendable, Encodable {
    public enum Kind: String, Hashable, Sendable, Encodable {
        case member
    }

    /// What the page knows the card by.
    public var key: String
    public var kind: Kind
    /// The hero whose Live Activity it is (a member's card).
    public var hero: String?
    /// The string-catalog language the phone localizes in; nil until the server
    /// has heard it from the app.
    public var language: String?

    public static func memberKey(_ hero: HeroID) -> String { "hero:\(hero.rawValue)" }
}

/// The adventure's cards and which card each push log entry belongs to.
struct LiveCardDirectory {
    private(set) var cards: [LiveCard]
    private var heroByActivity: [ActivityID: HeroID] = [:]

    init(roster: [PartyMember]) {
        cards = roster.map { LiveCard(key: LiveCard.memberKey($0.hero), kind: .member, hero: $0.hero.rawValue, language: nil) }
    }

    enum Route: Equatable {
        case card(String)
        /// An activity registered after the page learned the adventure's: look it up, `learn` it, route again.
        case unknownActivity(ActivityID)
        /// Not a Live Activity push of this adventure's phones (a walkie-talkie push).
        case none
    }

    /// The card of a push to `target` whose body is `payload`.
    func route(_ target: PushTarget, payload: Data) -> Route {
        switch target {
        case .liveActivity(let activity):
            guard let hero = heroByActivity[activity] else { return .unknownActivity(activity) }
            return .card(LiveCard.memberKey(hero))
        case .pushToStart:
            // The device is the phone; the hero its new activity shows is in the attributes it received.
            guard let payload = try? JSONDecoder().decode(LiveActivityPayload.self, from: payload),
                  let hero = payload.attributes?.heroID,
                  cards.contains(where: { $0.key == LiveCard.memberKey(HeroID(hero)) }) else { return .none }
            return .card(LiveCard.memberKey(HeroID(hero)))
        case .pushToTalk, .followerChannel:
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

    /// An activity the page had not heard of, as the store keeps it.
    mutating func learn(_ activity: LiveActivity) -> LiveCard? {
        // A follower's own activity (no hero) is no member's phone.
        guard let hero = activity.hero else { return nil }
        return learn(hero: hero, language: activity.locale, activity: activity.id)
    }

    func knows(_ activity: ActivityID) -> Bool { heroByActivity[activity] != nil }
}
