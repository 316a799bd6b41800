import Foundation
import PushPolicy
import Vocabulary

// Followers: players outside a party who watch its adventure on their Lock
// Screen. An app on iOS 18 listens on the adventure's broadcast channel for its
// language; an older one gets a push-to-start and then updates to its own token.

/// How a follower's device gets the adventure.
public enum FollowerDelivery: String, Hashable, Sendable, Codable {
    /// iOS 18: the app starts its activity with `pushType: .channel(id)`; one
    /// broadcast per channel reaches it.
    case channel
    /// Before iOS 18: a push-to-start to the device, then updates to the token the
    /// new activity reports.
    case token
}

public enum FollowerStatus: String, Hashable, Sendable, Codable {
    case following, left
}

/// A player following an adventure they play no part in.
public struct Follower: Hashable, Sendable {
    public var adventure: AdventureID
    public var player: PlayerID
    public var delivery: FollowerDelivery
    /// The catalog language of everything the follower reads.
    public var language: String
    /// The device woken by push-to-start (`.token` followers).
    public var device: DeviceID?
    public var status: FollowerStatus
    public var followedAt: Date

    public init(adventure: AdventureID, player: PlayerID, delivery: FollowerDelivery, language: String, device: DeviceID? = nil,
                status: FollowerStatus = .following, followedAt: Date) {
        self.adventure = adventure
        self.player = player
        self.delivery = delivery
        self.language = language
        self.device = device
        self.status = status
        self.followedAt = followedAt
    }
}

/// What a follow asks for, with the limits the server keeps.
public struct FollowRequest: Sendable {
    public var adventure: AdventureID
    public var player: PlayerID
    /// As the player typed it or a shared link carried it.
    public var code: String
    public var language: String
    public var how: How
    /// Most per-token followers (`.pushToStart`) one adventure takes.
    public var tokenFollowersPerAdventure: Int
    /// Most broadcast channels the app may have at once, across every node: APNs
    /// refuses more (10,000 per app and environment).
    public var channelLimit: Int
    /// The storage policy a channel made for this follow gets.
    public var storagePolicy: MessageStoragePolicy

    public enum How: Sendable {
        case channel
        /// `push` builds the push-to-start from the adventure as it is when the
        /// follow is stored, inside that transaction.
        case pushToStart(device: DeviceID, push: @Sendable (StoredAdventure, DeviceID) throws -> OutboxMessage)
    }

    public init(adventure: AdventureID, player: PlayerID, code: String, language: String, how: How,
                tokenFollowersPerAdventure: Int, channelLimit: Int, storagePolicy: MessageStoragePolicy) {
        self.adventure = adventure
        self.player = player
        self.code = code
        self.language = language
        self.how = how
        self.tokenFollowersPerAdventure = tokenFollowersPerAdventure
        self.channelLimit = channelLimit
        self.storagePolicy = storagePolicy
    }
}

/// What a stored follow leads to.
public struct Following: Sendable {
    public var follower: Follower
    public var adventure: StoredAdventure
    /// For a `.channel` follower: whether the channel can be handed out now.
    public var channel: ChannelAvailability?
    /// For a `.token` follower: whether this follow queued a push-to-start (the
    /// first, or again while the follower's activity has not registered yet).
    public var queuedPushToStart: Bool
    /// The player followed the adventure already: this follow was a repeat.
    public var wasFollowing: Bool

    public init(follower: Follower, adventure: StoredAdventure, channel: ChannelAvailability? = nil, queuedPushToStart: Bool = false,
                wasFollowing: Bool = false) {
        self.follower = follower
        self.adventure = adventure
        self.channel = channel
        self.queuedPushToStart = queuedPushToStart
        self.wasFollowing = wasFollowing
    }
}

/// Whether an adventure's channel for a language exists on APNs.
public enum ChannelAvailability: Hashable, Sendable {
    /// Made: the id the app listens on.
    case open(FollowerChannelID, BroadcastChannelID)
    /// Not made yet, and the caller is the one to make it now (`channelCreated`
    /// or `channelNotCreated` when APNs has answered).
    case create(ChannelCreation)
    /// Another caller (or node) is making it at this moment.
    case beingMade
    /// None can be made before `retryAt`: APNs failed (the server tries again by
    /// itself), or the app has as many channels as it may (`limitReached`).
    case unavailable(retryAt: Date, limitReached: Bool)
}

/// The right, held by one caller at a time, to make one channel on APNs. A
/// claim by a process that stopped is taken over; `attempt` tells a late answer
/// to an older claim from the current one.
public struct ChannelCreation: Hashable, Sendable {
    public var channel: FollowerChannelID
    public var adventure: AdventureID
    public var language: String
    public var storagePolicy: MessageStoragePolicy
    public var attempt: Int

    public init(channel: FollowerChannelID, adventure: AdventureID, language: String, storagePolicy: MessageStoragePolicy,
                attempt: Int) {
        self.channel = channel
        self.adventure = adventure
        self.language = language
        self.storagePolicy = storagePolicy
        self.attempt = attempt
    }
}

public enum FollowerChannelState: String, Hashable, Sendable, Codable, CaseIterable {
    /// Followers want it; no channel on APNs and no one making it. Made at `nextAttemptAt`.
    case wanted
    /// A caller holds the claim to make it (it may exist on APNs already).
    case creating
    /// Made: broadcasts go to `apnsID`.
    case open
    /// Deleted on APNs, or never made and no longer wanted: nothing more.
    case deleted

    /// Whether the channel holds (or may hold) one of the app's channels on APNs:
    /// what counts against the per-app limit.
    public var countsAgainstLimit: Bool { self == .creating || self == .open }
}

/// One adventure's broadcast channel for one language, as stored.
public struct FollowerChannel: Hashable, Sendable {
    public var id: FollowerChannelID
    public var adventure: AdventureID
    public var language: String
    public var state: FollowerChannelState
    public var apnsID: BroadcastChannelID?
    public var storagePolicy: MessageStoragePolicy
    public var ledger: BudgetLedger
    /// Why the last attempt to make it failed, or why it was deleted.
    public var note: String?

    public init(id: FollowerChannelID, adventure: AdventureID, language: String, state: FollowerChannelState,
                apnsID: BroadcastChannelID? = nil, storagePolicy: MessageStoragePolicy, ledger: BudgetLedger = BudgetLedger(),
                note: String? = nil) {
        self.id = id
        self.adventure = adventure
        self.language = language
        self.state = state
        self.apnsID = apnsID
        self.storagePolicy = storagePolicy
        self.ledger = ledger
        self.note = note
    }
}

/// What the store knows of the app's channels on APNs, from one snapshot: what
/// tells a channel another node has just made from one nobody knows.
public struct KnownChannels: Hashable, Sendable {
    /// Channels stored as open.
    public var apnsIDs: Set<BroadcastChannelID>
    /// Claims to make a channel held at this moment, by any node: such a channel
    /// may exist on APNs before its id is stored.
    public var creationsInFlight: Int

    public init(apnsIDs: Set<BroadcastChannelID>, creationsInFlight: Int) {
        self.apnsIDs = apnsIDs
        self.creationsInFlight = creationsInFlight
    }
}

/// A due adventure's followers' channel, with its budget.
public struct DueFollowerChannel: Hashable, Sendable {
    public var recipient: FollowerChannelRecipient
    public var ledger: BudgetLedger

    public init(recipient: FollowerChannelRecipient, ledger: BudgetLedger) {
        self.recipient = recipient
        self.ledger = ledger
    }
}

/// A due adventure's follower's own Live Activity (an app before iOS 18).
public struct DueFollowerActivity: Hashable, Sendable {
    public var recipient: FollowerActivityRecipient
    /// Nil when the reader said it has this activity's budget already; else as
    /// stored, with `newestPushTick`, as a member's (`DueActivity`).
    public var ledger: BudgetLedger?
    public var newestPushTick: Int?

    public init(recipient: FollowerActivityRecipient, ledger: BudgetLedger? = nil, newestPushTick: Int? = nil) {
        self.recipient = recipient
        self.ledger = ledger
        self.newestPushTick = newestPushTick
    }
}

public protocol FollowerStore: Sendable {
    /// Stores a follow of a followable adventure, atomic with its checks whatever
    /// follows at the same moment: the code is the adventure's; it runs; the player
    /// is not in its party; for `.pushToStart`, the device is the player's with a
    /// valid push-to-start token and the adventure has fewer than
    /// `tokenFollowersPerAdventure` such followers (a 409 otherwise) — the
    /// push-to-start is queued in the same transaction. For `.channel`, the
    /// adventure's channel for the language: open, or claimed by this caller to
    /// make (one caller of all nodes for a given channel), or unavailable when the
    /// app has `channelLimit` channels counted across all nodes. Following again
    /// changes the language or the way, never adds a second follower.
    func follow(_ request: FollowRequest, at now: Date) async throws -> Following
    /// The follower leaves: nothing more is sent to their own activity (a channel
    /// keeps broadcasting for the others).
    func unfollow(_ adventure: AdventureID, player: PlayerID, at now: Date) async throws
    /// Following followers, in the order they came.
    func followers(of adventure: AdventureID) async throws -> [Follower]
    /// The adventure's channels, whatever their state, by language.
    func followerChannels(of adventure: AdventureID) async throws -> [FollowerChannel]

    /// Claims up to `limit` channels that followers want and nobody is making (a
    /// failed attempt whose retry time has come, one whose maker stopped or whose
    /// claim ran out, `FollowerRules.claimTimeout`), of
    /// running adventures, as long as fewer than `channelLimit` channels count
    /// against the app's limit: each claim is held by one caller of all nodes.
    func takeChannelCreations(limit: Int, channelLimit: Int, at now: Date) async throws -> [ChannelCreation]
    /// APNs made the claimed channel: broadcasts go to `apnsID` from now on.
    /// Refused (a conflict) when the claim was taken over meanwhile: the caller
    /// then deletes the channel it made, which nobody else knows.
    @discardableResult
    func channelCreated(_ creation: ChannelCreation, as apnsID: BroadcastChannelID, at now: Date) async throws -> FollowerChannel
    /// APNs did not make it: tried again at `retryAt` (by whichever node claims it then).
    func channelNotCreated(_ creation: ChannelCreation, retryAt: Date, reason: String, at now: Date) async throws
    /// Channels whose adventure ended at or before `endedBy` (unix seconds: the
    /// end's dismissal date has passed) and whose pushes are all settled, to delete
    /// on APNs. Channels of ended adventures that were never made are closed on
    /// the way.
    func channelsToDelete(endedBy: Int, limit: Int, at now: Date) async throws -> [FollowerChannel]
    /// The channel is deleted on APNs (or APNs no longer had it): it no longer
    /// counts against the app's limit.
    func channelDeleted(_ channel: FollowerChannelID, note: String, at now: Date) async throws
    /// The app's channels the store knows, and whether any is being made.
    func knownChannels() async throws -> KnownChannels
}
