import Foundation
import Game
import PushPolicy
import Vocabulary

// The storage seam. Everything above it (the API, the ticker, the dispatcher,
// replay, the command line) speaks to these protocols; each storage engine
// (`StoreSQLite`, one writer; a PostgreSQL engine, many) implements them.
//
// Each operation is atomic: it happens whole or not at all, and a refusal
// (`StoreError`) leaves everything stored as it was. Where an operation checks
// an invariant that spans rows, the doc says which; an engine must hold it
// against concurrent callers (other tasks, other processes), not only in order.
// No engine type crosses the seam.

/// The whole store: what `rangers serve` runs on.
public protocol RangersStore: PlayerStore, PartyStore, TokenStore, AdventureStore, TickStore, OutboxStore,
    WalkieTalkieStore, ReplayStore, FollowerStore, NodeStore, AttemptStore, ConsoleStore, ConsolePartyStore, Sendable
{
    /// The schema versions this store has applied, oldest first (for `/healthz`).
    func appliedMigrations() async throws -> [String]
}

/// Attempts counted per key (a client address and what it did) in fixed windows,
/// over every node sharing the store: the limits against abuse hold cluster-wide.
public protocol AttemptStore: Sendable {
    /// Counts one more attempt for `key` in the window `AttemptWindow` puts `now`
    /// in, and returns how many there are in it now, this one included. Atomic
    /// whatever counts at the same moment, on any node.
    func countAttempt(_ key: String, window: AttemptWindow, at now: Date) async throws -> Int
    /// How many attempts `key` has in the window `now` falls in; nothing written.
    func attempts(_ key: String, window: AttemptWindow, at now: Date) async throws -> Int
}

/// The processes that share the store.
public protocol NodeStore: Sendable {
    /// This process among those that share the store: its claims and leases carry it.
    var node: String { get }
    /// The processes using the store now, this one included: always 1 for a store
    /// one process owns.
    func liveNodes() async throws -> Int
    /// Whether this process's heartbeat on a shared store is current: renewed
    /// within its lease, so other nodes do not take its work. Always true for a
    /// store one process owns.
    var heartbeatIsCurrent: Bool { get }
}

public protocol PlayerStore: Sendable {
    /// Creates a player and returns their API key, which is not stored (only its
    /// hash) and cannot be shown again. Names are 1…`longestName` characters.
    func createPlayer(name: String, at now: Date) async throws -> (player: Player, apiKey: String)
    /// The player whose key this is, or nil for a malformed, unknown or differing
    /// key; the stored hash is compared in constant time.
    func player(authenticatedBy apiKey: String) async throws -> Player?
    /// Replaces the heroes a player plays. Atomic with the check that no hero the
    /// player is using in a party is dropped.
    @discardableResult
    func pickHeroes(_ heroes: [HeroID], for player: PlayerID) async throws -> [HeroID]
    func heroes(of player: PlayerID) async throws -> [HeroID]
}

public protocol PartyStore: Sendable {
    /// A party with a fresh, unique invite code, its creator as first member with
    /// one of their picked heroes, and its Push To Talk channel, together.
    @discardableResult
    func createParty(name: String, by player: PlayerID, hero: HeroID, at now: Date) async throws -> Party
    /// Joins the party the code names. Atomic with its checks, whatever joins at
    /// the same moment: never more than `AdventureSetup.partySizes.upperBound`
    /// members, one member per hero, no joining while the party's adventure runs,
    /// only a hero the player picked. Joining again with the same hero changes nothing.
    @discardableResult
    func joinParty(inviteCode typed: String, player: PlayerID, hero: HeroID, at now: Date) async throws -> PartyMembership
    /// Leaves the party; if the player listens on its channel, the push
    /// `leaveChannelPush` builds is queued in the same transaction.
    func leaveParty(_ party: PartyID, player: PlayerID, at now: Date,
                    leaveChannelPush: @escaping @Sendable (ChannelMember) -> OutboxMessage?) async throws
    func party(_ id: PartyID) async throws -> Party
    /// In the order they joined: the order a roster takes.
    func members(of party: PartyID) async throws -> [PartyMembership]
    func parties(of player: PlayerID) async throws -> [Party]
    func membership(of player: PlayerID, in party: PartyID) async throws -> PartyMembership?
}

public protocol TokenStore: Sendable {
    /// Registers a Live Activity of one of the player's heroes in a running
    /// adventure with its update token; with no hero, a follower's activity (the
    /// player follows the adventure per token). The same registration again
    /// changes nothing; the same activity with another token is a rotation.
    @discardableResult
    func registerLiveActivity(activityID: ActivityID, player: PlayerID, adventure: AdventureID, hero: HeroID?,
                              token: PushToken, frequentUpdates: Bool, locale: String, at now: Date) async throws -> LiveActivity
    /// Makes `newToken` the activity's one valid token and invalidates the old one
    /// in the same transaction: at no moment, whatever rotates at once, does an
    /// activity have two valid tokens, and every push claimed after the commit,
    /// queued before it or not, goes to the new one.
    @discardableResult
    func rotateToken(activityID: ActivityID, newToken: PushToken, by player: PlayerID, at now: Date) async throws -> LiveActivity
    /// Ended or dismissed (final): nothing more is sent to the activity.
    @discardableResult
    func markActivity(_ activityID: ActivityID, _ status: ReportedActivityStatus, by player: PlayerID) async throws -> LiveActivity
    func liveActivity(_ id: ActivityID) async throws -> LiveActivity
    /// Registers or replaces the device's push-to-start token.
    @discardableResult
    func registerPushToStartToken(deviceID: DeviceID, player: PlayerID, token: PushToken, locale: String,
                                  at now: Date) async throws -> Device
    /// The roster's devices with a valid push-to-start token, in roster order.
    func pushToStartDevices(of roster: [PartyMember]) async throws -> [PushToStartDevice]
}

public protocol AdventureStore: Sendable {
    /// Stores a new adventure at tick 0 with its first pushes, in one transaction.
    /// Atomic with its checks, whatever starts at the same moment: one running
    /// adventure per party, every roster member still in the party with that hero.
    /// With a `followCode`, players outside the party may follow it.
    @discardableResult
    func startAdventure(id: AdventureID, party: PartyID, setup: AdventureSetup, state: AdventureState, startedAt: Int,
                        contentVersion: String, followCode: FollowCode?, outbox: [OutboxMessage],
                        at now: Date) async throws -> StoredAdventure
    func adventure(_ id: AdventureID) async throws -> StoredAdventure
    func runningAdventures() async throws -> [StoredAdventure]
    /// Every adventure the party has had, the newest first.
    func adventures(of party: PartyID) async throws -> [StoredAdventure]
    /// Queues a command for the adventure's next tick (refused once it has ended).
    @discardableResult
    func enqueueCommand(_ command: Command, for adventure: AdventureID, receivedAt now: Date) async throws -> QueuedCommand
    /// Queues the game master's end. Asked twice, even at once, it is queued once.
    @discardableResult
    func endAdventureRequested(_ adventure: AdventureID, at now: Date) async throws -> QueuedCommand
    /// The event log, in the order the events happened.
    func events(of adventure: AdventureID) async throws -> [LoggedEvent]
    /// The applied commands with the tick each was applied at.
    func commands(of adventure: AdventureID) async throws -> [ScheduledCommand]
}

public protocol TickStore: Sendable {
    /// Running adventures whose next tick is due by `now` (its second and phase,
    /// `TickSchedule`), most overdue first,
    /// from one snapshot, leaving out `skipping`. Where several nodes share the
    /// store, only those this node holds a lease on: it first takes due adventures
    /// that no live node holds, each taken by one node whatever takes at once, up
    /// to its fair share (running adventures ÷ live nodes, plus a margin). What the caller
    /// says it holds already (`holding`) is not read.
    func dueAdventures(at now: Date, limit: Int, skipping: Set<AdventureID>, holding: HeldByReader) async throws -> [DueAdventure]
    /// Stores many adventures' ticks, each all or nothing: its state, events, the
    /// commands it applied, its pushes and its activities' budgets. A tick is
    /// stored once: only if the stored `lastTick` is the one before it and no
    /// other live node holds the adventure's lease, whatever stores at the same
    /// moment; otherwise that one is refused (a conflict) and the others are
    /// stored. Storing a tick keeps (or takes) the lease. Returns, in order, each
    /// tick's result.
    @discardableResult
    func recordTicks(_ records: [TickRecord], at now: Date) async throws -> [Result<StoredTick, StoreError>]
    /// Renews this node's leases and returns the adventures it holds now. One it
    /// held before and does not now was taken by another node (this one stalled
    /// past its lease) or given up to spread the load over more nodes: the caller
    /// forgets it. A store one process owns holds every adventure.
    func renewLeases() async throws -> HeldAdventures
    /// Gives up every lease this node holds, at once (a graceful stop): other
    /// nodes take its adventures at their next pass, not after the expiry.
    func releaseLeases() async throws
    /// Puts off an adventure's next tick (it cannot be played now) to `second`.
    func postponeTicks(of adventure: AdventureID, until second: Int) async throws
    /// When the earliest running adventure's next tick is due, to the millisecond.
    func nextTickDue() async throws -> Date?
    /// One adventure's inputs to its next tick, whatever its status, from one
    /// snapshot: the adventure, its queued commands, its reachable activities
    /// with their budgets. For inspection (tools, tests); the ticker reads
    /// `dueAdventures`.
    func tickInputs(of adventure: AdventureID) async throws -> TickInputs
}

public protocol OutboxStore: Sendable {
    /// Records APNs' answers, then claims up to `limit` due pushes, marking them
    /// `sending` by this store. Each push is claimed by one caller, whatever claims at once. On
    /// the way, pushes the policy marked supersedable with a newer push to their
    /// target are `superseded`, and pushes past their expiration or whose target
    /// has no valid token are `dropped`. Each answer is recorded in its own
    /// savepoint; the refusals come back in order.
    func recordAndClaim(_ results: [PushResult], limit: Int, now: Date) async throws
        -> (refusals: [StoreError?], claimed: [ClaimedPush])
    /// Records answers without claiming. An invalid token is invalidated wherever
    /// it is the valid one, and its pending pushes dropped, in the same transaction.
    /// A supersedable push answered "try later" while a newer push to its target
    /// was queued is `superseded` at once, not left waiting to be tried again.
    @discardableResult
    func record(_ results: [PushResult], at now: Date) async throws -> [StoreError?]
    /// Pushes claimed by a dispatcher that has stopped (crashed, killed) go back
    /// to `pending`; never a push a running dispatcher is sending. Returns how
    /// many. An answer is recorded only from the store that holds the claim.
    @discardableResult
    func recoverInterruptedSends() async throws -> Int
    /// Pushes not yet settled (pending or being sent).
    func pendingOutboxCount() async throws -> Int
    /// When the earliest pending push is due.
    func nextOutboxAttemptAt() async throws -> Date?
    /// Every push decided for the adventure and what became of it, in the order decided.
    func outbox(of adventure: AdventureID) async throws -> [OutboxEntry]
    /// What was sent for the adventure and what APNs answered, in the order sent.
    func pushLog(of adventure: AdventureID) async throws -> [PushLogEntry]
    /// The adventure's push log after `cursor`, oldest first, at most `limit`
    /// entries, and its pushes waiting to be sent again, from one snapshot. A
    /// reader that asks again from each page's cursor gets every entry exactly
    /// once, whatever writes at the same moment (several nodes answering the
    /// adventure's pushes at once included): an entry whose write has not committed
    /// when a page is read is never passed over, it comes in a later page.
    func pushLog(of adventure: AdventureID, after cursor: PushLogCursor, limit: Int) async throws -> PushLogPage
}

public protocol WalkieTalkieStore: Sendable {
    /// The party's channel, made on first asking for a party from before channels.
    func channel(of party: PartyID, at now: Date) async throws -> Channel
    /// A party member joins (or rejoins, replacing the token) an open channel.
    @discardableResult
    func joinChannel(_ channel: ChannelID, player: PlayerID, token: PushToken, at now: Date) async throws -> ChannelMember
    /// The app left by itself: no push, the token is dropped.
    func leaveChannel(_ channel: ChannelID, player: PlayerID, at now: Date) async throws
    /// Closes the channel and queues `leaveChannelPush` for each listening member, together.
    func closeChannel(_ channel: ChannelID, at now: Date,
                      leaveChannelPush: @escaping @Sendable (ChannelMember) -> OutboxMessage?) async throws
    /// Members listening now (joined, with a valid token).
    func channelMembers(of channel: ChannelID) async throws -> [ChannelMember]
    /// Stores a transmission and queues `push` for every listener who hears it
    /// (`WalkieTalkiePolicy`), in one transaction. Atomic with the policy's checks,
    /// whatever is sent at once: refused with its `WalkieTalkiePolicy.Refusal` when
    /// the channel is closed, the speaker is not listening, or another member's
    /// message is still playing (one speaker at a time).
    @discardableResult
    func recordTransmission(_ new: NewTransmission, at now: Date,
                            push: @escaping @Sendable (ChannelMember, Transmission) -> OutboxMessage) async throws -> Transmission
    /// A transmission with its audio, for a member of the channel's party.
    func transmission(_ id: TransmissionID, for player: PlayerID) async throws -> Transmission
    /// Removes the audio recorded before `cutoff`, keeping the records; returns how many.
    @discardableResult
    func deleteAudio(recordedBefore cutoff: Date, at now: Date) async throws -> Int
}

public protocol ReplayStore: Sendable {
    /// Everything a replay needs of one adventure, from one snapshot.
    func record(of adventure: AdventureID, includingOutbox: Bool) async throws -> AdventureRecord
}

// The same operations with their usual arguments.
extension RangersStore {
    /// A private adventure's start, at `now`.
    @discardableResult
    public func startAdventure(id: AdventureID, party: PartyID, setup: AdventureSetup, state: AdventureState, startedAt: Int,
                               contentVersion: String, outbox: [OutboxMessage], at now: Date) async throws -> StoredAdventure {
        try await startAdventure(id: id, party: party, setup: setup, state: state, startedAt: startedAt,
                                 contentVersion: contentVersion, followCode: nil, outbox: outbox, at: now)
    }

    public func record(of adventure: AdventureID) async throws -> AdventureRecord {
        try await record(of: adventure, includingOutbox: true)
    }

    /// Every adventure due by the end of `second` (whatever its phase), read in
    /// full, as a reader that holds none of them.
    public func dueAdventures(by second: Int, limit: Int = 1000, skipping: Set<AdventureID> = []) async throws -> [DueAdventure] {
        try await dueAdventures(at: TickSchedule.dueInstant(second: second, phase: 999), limit: limit, skipping: skipping,
                                holding: .nothing)
    }
}
