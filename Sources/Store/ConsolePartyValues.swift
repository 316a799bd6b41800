import Foundation
import Game
import Vocabulary

/// What the game master typed to find a party: an invite code, as a player would
/// type it (one lookup), or part of its name (letters A–Z in either case; a walk
/// along the directory's order).
public struct PartySearch: Hashable, Sendable {
    public enum Match: Hashable, Sendable {
        case inviteCode(InviteCode)
        case name(String)
    }

    public let match: Match
    /// As typed, trimmed, at most `StoredValueLimits.longestName` characters.
    public let text: String

    /// Nil when there is nothing to search for: every party. Text that reads as
    /// an invite code is looked up as one first (`asName` for a second look).
    public init?(_ typed: String?) {
        let trimmed = (typed ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        text = String(trimmed.prefix(StoredValueLimits.longestName))
        match = InviteCode(typed: trimmed).map(Match.inviteCode) ?? .name(text)
    }

    private init(name text: String) {
        self.text = text
        match = .name(text)
    }

    /// The same text as part of a name: for text that reads as an invite code no party has.
    public var asName: PartySearch? {
        guard case .inviteCode = match else { return nil }
        return PartySearch(name: text)
    }
}

/// Where the next page of the party directory starts: after this party, in the
/// directory's order (by name, byte for byte, then id). Each page is one index range.
public struct PartyDirectoryCursor: Hashable, Sendable {
    public var name: String
    public var id: PartyID

    public init(name: String, id: PartyID) {
        self.name = name
        self.id = id
    }
}

/// A party as the directory lists it.
public struct PartyListing: Hashable, Sendable {
    public var party: Party
    public var memberCount: Int
    public var runningAdventure: AdventureID?

    public init(party: Party, memberCount: Int, runningAdventure: AdventureID?) {
        self.party = party
        self.memberCount = memberCount
        self.runningAdventure = runningAdventure
    }

    public var cursor: PartyDirectoryCursor { PartyDirectoryCursor(name: party.name, id: party.id) }
}

/// A phone a player registered for push-to-start, as the console shows it.
public struct ConsolePhone: Hashable, Sendable {
    public var device: DeviceID
    public var player: PlayerID
    /// A push-to-start token is registered and APNs has not called it invalid.
    public var pushToStartRegistered: Bool
    /// Why APNs refused the token (`Unregistered`, `BadDeviceToken` …), when it did.
    public var invalidReason: String?
    /// The catalog language its pushes are written in (the API keeps the locale's).
    public var locale: String

    public init(device: DeviceID, player: PlayerID, pushToStartRegistered: Bool, invalidReason: String?, locale: String) {
        self.device = device
        self.player = player
        self.pushToStartRegistered = pushToStartRegistered
        self.invalidReason = invalidReason
        self.locale = locale
    }
}

/// A player of a party, with their phones.
public struct ConsolePlayer: Hashable, Sendable {
    public var id: PlayerID
    public var name: String
    public var phones: [ConsolePhone]

    public init(id: PlayerID, name: String, phones: [ConsolePhone]) {
        self.id = id
        self.name = name
        self.phones = phones
    }
}

/// A Live Activity registered in an adventure, with its newest token's fate.
public struct ConsoleActivity: Hashable, Sendable {
    public var id: ActivityID
    public var player: PlayerID
    /// Nil for a follower's activity.
    public var hero: HeroID?
    public var frequentUpdates: Bool
    public var locale: String
    public var status: LiveActivityStatus
    /// Why APNs refused its newest token, when it did (nil: the token is valid).
    public var tokenInvalidReason: String?

    public init(id: ActivityID, player: PlayerID, hero: HeroID?, frequentUpdates: Bool, locale: String,
                status: LiveActivityStatus, tokenInvalidReason: String?) {
        self.id = id
        self.player = player
        self.hero = hero
        self.frequentUpdates = frequentUpdates
        self.locale = locale
        self.status = status
        self.tokenInvalidReason = tokenInvalidReason
    }
}

/// A party's walkie-talkie as the console shows it.
public struct ConsoleWalkieTalkie: Hashable, Sendable {
    public var channel: Channel
    /// Members listening now (joined, with a valid token).
    public var listening: [PlayerID]

    public init(channel: Channel, listening: [PlayerID]) {
        self.channel = channel
        self.listening = listening
    }
}

/// Where the next page of finished adventures starts: after this one, in the
/// order they ended (the newest first, then by id).
public struct FinishedAdventureCursor: Hashable, Sendable {
    /// Unix seconds.
    public var endedAt: Int
    public var id: AdventureID

    public init(endedAt: Int, id: AdventureID) {
        self.endedAt = endedAt
        self.id = id
    }
}

/// Whether phones are being reached, over every node: what the store recorded
/// since a moment (the last hour, on the console's page).
public struct DeliveryHealthReading: Hashable, Sendable {
    /// How many answers APNs gave with this status and reason (nil: no answer).
    public struct Answers: Hashable, Sendable {
        public var status: Int?
        public var reason: String?
        public var count: Int

        public init(status: Int?, reason: String?, count: Int) {
            self.status = status
            self.reason = reason
            self.count = count
        }
    }

    /// The most frequent first.
    public var answers: [Answers]
    /// Live Activity, push-to-start and walkie-talkie tokens APNs called invalid.
    public var tokensInvalidated: Int
    /// Pushes answered after more than one attempt.
    public var retried: Int
    /// Followers' broadcast channels made or being made now (Apple allows an app 10,000).
    public var channelsInUse: Int

    public init(answers: [Answers], tokensInvalidated: Int, retried: Int, channelsInUse: Int) {
        self.answers = answers
        self.tokensInvalidated = tokensInvalidated
        self.retried = retried
        self.channelsInUse = channelsInUse
    }
}

/// What the console reads of parties and adventures, beside what the API reads.
public protocol ConsolePartyStore: Sendable {
    /// Adventures that have ended, the latest end first, after `after`, at most `limit`.
    func finishedAdventures(after: FinishedAdventureCursor?, limit: Int) async throws -> [StoredAdventure]
    /// The node that holds the running adventure's lease now (its ticks are played
    /// there); nil when none does (between two nodes, or ended). A store one
    /// process owns names that process.
    func adventureHolder(_ adventure: AdventureID) async throws -> String?
    /// What the store recorded of deliveries since `since`, on every node, from one snapshot.
    func deliveryHealth(since: Date) async throws -> DeliveryHealthReading
    /// Parties in the directory's order after `after`, at most `limit`, those
    /// `search` finds: the party with its invite code, or those with its text in
    /// their name (A–Z in either case).
    func partyDirectory(search: PartySearch?, after: PartyDirectoryCursor?, limit: Int) async throws -> [PartyListing]
    /// The players, in the order given, with their phones; unknown ids are left out.
    func consolePlayers(_ players: [PlayerID]) async throws -> [ConsolePlayer]
    /// The adventure's Live Activities, in the order registered.
    func consoleActivities(of adventure: AdventureID) async throws -> [ConsoleActivity]
    /// The party's walkie-talkie, if it has one (nothing is made for asking).
    func consoleWalkieTalkie(of party: PartyID) async throws -> ConsoleWalkieTalkie?
}
