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
    /// The player's hero in the adventure; absent for a follower's activity.
    var hero: HeroID?
    /// `ActivityAuthorizationInfo().frequentPushesEnabled` when the activity started.
    var frequentPushesEnabled: Bool
    /// `Locale.current.identifier`, kept as the catalog language it maps to.
    @Checked<LocaleTag> var locale: String

    private enum CodingKeys: String, CodingKey {
        case activityID, pushToken, hero, frequentPushesEnabled, locale
    }

    // The hero may be left out (a follower's activity), not null, as the document says.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        _activityID = try container.decode(Checked<Identifier<ActivityID>>.self, forKey: .activityID)
        _pushToken = try container.decode(Checked<HexPushToken>.self, forKey: .pushToken)
        hero = container.contains(.hero) ? try container.decode(Checked<KnownHero>.self, forKey: .hero).wrappedValue : nil
        frequentPushesEnabled = try container.decode(Bool.self, forKey: .frequentPushesEnabled)
        _locale = try container.decode(Checked<LocaleTag>.self, forKey: .locale)
    }
}

struct RotateTokenRequest: Decodable {
    @Checked<HexPushToken> var pushToken: PushToken
}

struct ActivityStatusRequest: Decodable {
    /// What the app may report; `active` is the server's own starting state.
    enum ReportedStatus: String, CaseIterable {
        case ended, dismissed

        var stored: ReportedActivityStatus {
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
    /// Whether players outside the party may follow it (with the follow code the
    /// answer carries); private when absent.
    var followable: Bool

    private enum CodingKeys: String, CodingKey {
        case partyID, route, tickInterval, timeLimit, seed, followable
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
        followable = container.contains(.followable) ? try container.decode(Bool.self, forKey: .followable) : false
        do {
            try AdventureSetup.checkTimes(tickInterval: tickInterval, timeLimit: timeLimit)
        } catch {
            let key: CodingKeys = if case .tickInterval = error { .tickInterval } else { .timeLimit }
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "is refused: \(error.description)")
        }
    }
}

/// What a follower's app sends to follow an adventure.
struct FollowRequestBody: Decodable {
    /// The adventure's follow code, as typed or as a shared link carried it.
    var followCode: FollowCode
    /// `Locale.current.identifier`, kept as the catalog language it maps to.
    var locale: String
    /// True from an app that can listen on a broadcast channel (iOS 18): the answer
    /// carries the channel for `Activity.request(…, pushType: .channel(id))`.
    var broadcastChannel: Bool
    /// Otherwise the device whose push-to-start token (registered with
    /// `PUT /v1/devices/{id}/push-to-start-token`) starts the follower's activity.
    /// With a channel, the device to fall back to while APNs refuses or fails to
    /// make channels.
    var deviceID: DeviceID?

    private enum CodingKeys: String, CodingKey {
        case followCode, locale, broadcastChannel, deviceID
    }

    // Optional means "may be left out", not "may be null", as the document says.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        followCode = try container.decode(Checked<TypedFollowCode>.self, forKey: .followCode).wrappedValue
        locale = try container.decode(Checked<LocaleTag>.self, forKey: .locale).wrappedValue
        broadcastChannel = container.contains(.broadcastChannel) ? try container.decode(Bool.self, forKey: .broadcastChannel) : false
        deviceID = container.contains(.deviceID)
            ? try container.decode(Checked<Identifier<DeviceID>>.self, forKey: .deviceID).wrappedValue : nil
    }
}

struct UsePotionRequest: Decodable {
    @Checked<KnownHero> var hero: HeroID
}
