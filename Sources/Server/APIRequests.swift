import Game
import Store
import Vocabulary

// Request bodies as the app and the game master send them, each field checked as
// it is decoded (see RequestFields.swift) and as openapi.yaml describes it.
// Unknown keys are ignored (an older server accepts a newer app's extra fields);
// a missing key, a wrong type or a value out of range is refused naming the field.
// Numbers are read as `Checked<WholeNumber<…>>`, so one that does not fit (1.5,
// -1 for a seed) is refused by name too.

struct CreatePlayerRequest: Decodable {
    @Checked<DisplayName> var name: String
}

struct PickHeroesRequest: Decodable {
    @Checked<HeroPicks> var heroes: [HeroID]
}

struct CreatePartyRequest: Decodable {
    @Checked<DisplayName> var name: String
    @Checked<KnownHero> var hero: HeroID
}

struct JoinPartyRequest: Decodable {
    @Checked<TypedInviteCode> var inviteCode: InviteCode
    @Checked<KnownHero> var hero: HeroID
}

/// What the app sends once `Activity.request` returned and its `pushTokenUpdates`
/// gave the first token.
struct RegisterActivityRequest: Decodable {
    @Checked<Identifier<ActivityID>> var activityID: ActivityID
    /// Hex, as the app formats `Data` from `pushTokenUpdates`.
    @Checked<HexPushToken> var pushToken: PushToken
    @Checked<KnownHero> var hero: HeroID
    /// `ActivityAuthorizationInfo().frequentPushesEnabled` when the activity started.
    var frequentPushesEnabled: Bool
    /// `Locale.current.identifier`, kept as the catalog language it maps to.
    @Checked<LocaleTag> var locale: String
}

struct RotateTokenRequest: Decodable {
    @Checked<HexPushToken> var pushToken: PushToken
}

struct ActivityStatusRequest: Decodable {
    /// What the app may report; `active` is the server's own starting state.
    enum ReportedStatus: String, CaseIterable {
        case ended, dismissed

        var stored: LiveActivityStatus {
            switch self {
            case .ended: .ended
            case .dismissed: .dismissed
            }
        }
    }

    @Checked<OneOf<ReportedStatus>> var status: ReportedStatus
}

struct PushToStartTokenRequest: Decodable {
    @Checked<HexPushToken> var pushToken: PushToken
    @Checked<LocaleTag> var locale: String
}

struct JoinChannelRequest: Decodable {
    /// The ephemeral Push To Talk token, hex; its length varies.
    @Checked<HexPushToken> var pushToken: PushToken
}

struct StartAdventureRequest: Decodable {
    @Checked<Identifier<PartyID>> var partyID: PartyID
    @Checked<KnownRoute> var route: RouteID
    /// Seconds between ticks.
    var tickInterval: Int
    /// Seconds; the longest a Live Activity lives (8 hours) when absent.
    var timeLimit: Int
    /// Fixed for a reproducible adventure; drawn at random when absent.
    var seed: UInt64?

    private enum CodingKeys: String, CodingKey {
        case partyID, route, tickInterval, timeLimit, seed
    }

    /// The times are checked together (a time limit is at least one tick), with
    /// the game's own check, each refusal naming the field it is about.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        _partyID = try container.decode(Checked<Identifier<PartyID>>.self, forKey: .partyID)
        _route = try container.decode(Checked<KnownRoute>.self, forKey: .route)
        tickInterval = try container.decode(Checked<WholeNumber<Int>>.self, forKey: .tickInterval).wrappedValue
        // Optional means "may be left out", not "may be null": the document says integer.
        timeLimit = container.contains(.timeLimit)
            ? try container.decode(Checked<WholeNumber<Int>>.self, forKey: .timeLimit).wrappedValue
            : AdventureSetup.longestTimeLimit
        seed = container.contains(.seed) ? try container.decode(Checked<WholeNumber<UInt64>>.self, forKey: .seed).wrappedValue : nil
        do {
            try AdventureSetup.checkTimes(tickInterval: tickInterval, timeLimit: timeLimit)
        } catch {
            let key: CodingKeys = if case .tickInterval = error { .tickInterval } else { .timeLimit }
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "is refused: \(error.description)")
        }
    }
}

struct UsePotionRequest: Decodable {
    @Checked<KnownHero> var hero: HeroID
}
