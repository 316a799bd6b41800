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
    var hero: HeroID
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
}

struct UsePotionRequest: Decodable {
    var hero: HeroID
}
