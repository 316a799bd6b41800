import Game
import Store
import Vocabulary

// Request bodies as the app and the game master send them. Unknown keys are
// ignored (an older server accepts a newer app's extra fields); missing keys and
// wrong types are refused by the decoder with the field's name.

struct CreatePlayerRequest: Decodable {
    var name: String
}

struct PickHeroesRequest: Decodable {
    var heroes: [HeroID]
}

struct CreatePartyRequest: Decodable {
    var name: String
    var hero: HeroID
}

struct JoinPartyRequest: Decodable {
    var inviteCode: String
    var hero: HeroID
}

/// What the app sends once `Activity.request` returned and its `pushTokenUpdates`
/// gave the first token.
struct RegisterActivityRequest: Decodable {
    var activityID: String
    /// Hex, as the app formats `Data` from `pushTokenUpdates`.
    var pushToken: String
    /// The player's hero in the adventure; absent for a follower's activity.
    var hero: HeroID?
    /// `ActivityAuthorizationInfo().frequentPushesEnabled` when the activity started.
    var frequentPushesEnabled: Bool
    /// `Locale.current.identifier`; mapped to a catalog language.
    var locale: String
}

struct RotateTokenRequest: Decodable {
    var pushToken: String
}

struct ActivityStatusRequest: Decodable {
    /// What the app may report; `active` is the server's own starting state.
    enum ReportedStatus: String, Decodable {
        case ended, dismissed

        var stored: LiveActivityStatus {
            switch self {
            case .ended: .ended
            case .dismissed: .dismissed
            }
        }
    }

    var status: ReportedStatus
}

struct PushToStartTokenRequest: Decodable {
    var pushToken: String
    var locale: String
}

struct StartAdventureRequest: Decodable {
    var partyID: PartyID
    var route: RouteID
    /// Seconds between ticks.
    var tickInterval: Int
    /// Seconds; the longest a Live Activity lives (8 hours) when absent.
    var timeLimit: Int?
    /// Fixed for a reproducible adventure; drawn at random when absent.
    var seed: UInt64?
    /// Whether players outside the party may follow it (with the follow code the
    /// answer carries); private when absent.
    var followable: Bool?
}

/// What a follower's app sends to follow an adventure.
struct FollowRequestBody: Decodable {
    /// The adventure's follow code, as typed or as a shared link carried it.
    var followCode: String
    /// `Locale.current.identifier`; mapped to a catalog language.
    var locale: String
    /// True from an app that can listen on a broadcast channel (iOS 18): the answer
    /// carries the channel for `Activity.request(…, pushType: .channel(id))`.
    var broadcastChannel: Bool?
    /// Otherwise the device whose push-to-start token (registered with
    /// `PUT /v1/devices/{id}/push-to-start-token`) starts the follower's activity.
    var deviceID: String?
}

struct UsePotionRequest: Decodable {
    var hero: HeroID
}
