import Foundation
import Game
import PushPolicy
import Vocabulary

// What the store hands out and takes in. Plain values: no database handle leaks.

public struct Player: Hashable, Sendable, Codable {
    public var id: PlayerID
    public var name: String
    public var createdAt: Date

    public init(id: PlayerID, name: String, createdAt: Date) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
    }
}

public struct Party: Hashable, Sendable, Codable {
    public var id: PartyID
    public var name: String
    public var inviteCode: InviteCode
    public var createdBy: PlayerID
    public var createdAt: Date

    public init(id: PartyID, name: String, inviteCode: InviteCode, createdBy: PlayerID, createdAt: Date) {
        self.id = id
        self.name = name
        self.inviteCode = inviteCode
        self.createdBy = createdBy
        self.createdAt = createdAt
    }
}

public struct PartyMembership: Hashable, Sendable, Codable {
    public var party: PartyID
    public var player: PlayerID
    public var hero: HeroID
    public var joinedAt: Date

    public var member: PartyMember { PartyMember(player: player, hero: hero) }

    public init(party: PartyID, player: PlayerID, hero: HeroID, joinedAt: Date) {
        self.party = party
        self.player = player
        self.hero = hero
        self.joinedAt = joinedAt
    }
}

public struct Device: Hashable, Sendable, Codable {
    public var id: DeviceID
    public var player: PlayerID
    /// Nil when none was registered or APNs said it is no longer valid.
    public var pushToStartToken: PushToken?
    public var locale: String
    public var updatedAt: Date

    public init(id: DeviceID, player: PlayerID, pushToStartToken: PushToken? = nil, locale: String, updatedAt: Date) {
        self.id = id
        self.player = player
        self.pushToStartToken = pushToStartToken
        self.locale = locale
        self.updatedAt = updatedAt
    }
}

public enum LiveActivityStatus: String, Hashable, Sendable, Codable, CaseIterable {
    /// On screen and receiving updates.
    case active
    /// The app saw it end; nothing more is sent to it.
    case ended
    /// The user removed it; nothing more is sent to it.
    case dismissed
}

/// What the app reports of its activity: that it ended or that the user
/// dismissed it. `active` is the server's own starting state, never reported.
public enum ReportedActivityStatus: String, Hashable, Sendable, Codable, CaseIterable {
    case ended, dismissed

    public var status: LiveActivityStatus {
        switch self {
        case .ended: .ended
        case .dismissed: .dismissed
        }
    }
}

public struct LiveActivity: Hashable, Sendable, Codable {
    public var id: ActivityID
    public var player: PlayerID
    public var adventure: AdventureID
    /// The hero whose activity it is; nil for a follower's, who plays none.
    public var hero: HeroID?
    public var frequentUpdates: Bool
    public var locale: String
    public var status: LiveActivityStatus
    /// The token pushes go to now; nil once the last one was found invalid.
    public var token: PushToken?
    public var ledger: BudgetLedger
    public var createdAt: Date

    public init(id: ActivityID, player: PlayerID, adventure: AdventureID, hero: HeroID?, frequentUpdates: Bool, locale: String, status: LiveActivityStatus, token: PushToken? = nil, ledger: BudgetLedger, createdAt: Date) {
        self.id = id
        self.player = player
        self.adventure = adventure
        self.hero = hero
        self.frequentUpdates = frequentUpdates
        self.locale = locale
        self.status = status
        self.token = token
        self.ledger = ledger
        self.createdAt = createdAt
    }
}

/// An adventure as stored: everything a replay needs (setup, content version) and
/// where it stands (state after `lastTick`, when the next tick is due).
public struct StoredAdventure: Hashable, Sendable {
    public var id: AdventureID
    public var party: PartyID
    public var setup: AdventureSetup
    /// Identifies the content the adventure runs with (a digest of it), so a replay
    /// can tell a changed catalog from a diverging game.
    public var contentVersion: String
    /// Unix seconds; tick `n` is the game time `startedAt + n × tickInterval`.
    public var startedAt: Int
    /// Milliseconds into its second at which each tick falls due (`TickSchedule`).
    public var tickPhase: Int
    public var state: AdventureState
    public var lastTick: Int
    /// Nil once the adventure is over.
    public var nextTickAt: Int?
    public var endedAt: Int?
    /// What players outside the party follow it with; nil for a private adventure.
    public var followCode: FollowCode?

    public var status: AdventureStatus { state.status }

    public init(id: AdventureID, party: PartyID, setup: AdventureSetup, contentVersion: String, startedAt: Int,
                tickPhase: Int = 0, state: AdventureState, lastTick: Int, nextTickAt: Int? = nil, endedAt: Int? = nil,
                followCode: FollowCode? = nil) {
        self.id = id
        self.party = party
        self.setup = setup
        self.contentVersion = contentVersion
        self.startedAt = startedAt
        self.tickPhase = tickPhase
        self.state = state
        self.lastTick = lastTick
        self.nextTickAt = nextTickAt
        self.endedAt = endedAt
        self.followCode = followCode
    }

    /// When tick `tick` falls due: its game time plus the adventure's phase.
    public func dueInstant(ofTick tick: Int) -> Date {
        TickSchedule.dueInstant(second: startedAt + tick * setup.tickInterval, phase: tickPhase)
    }
}

/// A command that arrived and waits for the next tick.
public struct QueuedCommand: Hashable, Sendable {
    public var id: CommandID
    public var command: Command
    public var receivedAt: Date

    public init(id: CommandID, command: Command, receivedAt: Date) {
        self.id = id
        self.command = command
        self.receivedAt = receivedAt
    }
}

/// What one tick of an adventure needs from the store, read from one snapshot so
/// the commands, recipients and budgets agree with the stored state.
public struct TickInputs: Sendable {
    public var adventure: StoredAdventure
    public var commands: [QueuedCommand]
    public var recipients: [LiveActivityRecipient]
    /// By activity (the members' and the followers' own), as `TickPipeline.tick` takes them.
    public var ledgers: [ActivityID: BudgetLedger]
    public var followers: Followers
    /// By followers' channel.
    public var followerLedgers: [FollowerChannelID: BudgetLedger]

    public init(adventure: StoredAdventure, commands: [QueuedCommand], recipients: [LiveActivityRecipient],
                ledgers: [ActivityID: BudgetLedger], followers: Followers = .none,
                followerLedgers: [FollowerChannelID: BudgetLedger] = [:]) {
        self.adventure = adventure
        self.commands = commands
        self.recipients = recipients
        self.ledgers = ledgers
        self.followers = followers
        self.followerLedgers = followerLedgers
    }
}

/// A device that can be woken with a push-to-start, with the hero it would show.
/// `PushPolicy.pushesForStart` answers one decision per recipient, in order.
public struct PushToStartDevice: Hashable, Sendable {
    public var device: DeviceID
    public var recipient: PushToStartRecipient

    public init(device: DeviceID, recipient: PushToStartRecipient) {
        self.device = device
        self.recipient = recipient
    }
}

/// Whom a push is for. The token is looked up when the push is claimed, never
/// copied into the outbox, so a push queued before a rotation reaches the new token.
public enum PushTarget: Hashable, Sendable, CustomStringConvertible {
    case liveActivity(ActivityID)
    case pushToStart(DeviceID)
    case pushToTalk(ChannelMemberID)
    /// A broadcast to an adventure's followers' channel: the channel APNs made for
    /// it is looked up when the push is claimed.
    case followerChannel(FollowerChannelID)

    /// What kind of thing a push is for; its raw value is what the store keeps.
    public enum Kind: String, Hashable, Sendable, Codable {
        case liveActivity, pushToStart, pushToTalk, followerChannel
    }

    public var kind: Kind {
        switch self {
        case .liveActivity: .liveActivity
        case .pushToStart: .pushToStart
        case .pushToTalk: .pushToTalk
        case .followerChannel: .followerChannel
        }
    }

    public var id: String {
        switch self {
        case .liveActivity(let id): id.rawValue
        case .pushToStart(let id): id.rawValue
        case .pushToTalk(let id): id.rawValue
        case .followerChannel(let id): id.rawValue
        }
    }

    public init(kind: String, id: String) throws {
        switch Kind(rawValue: kind) {
        case .liveActivity: self = .liveActivity(ActivityID(id))
        case .pushToStart: self = .pushToStart(DeviceID(id))
        case .pushToTalk: self = .pushToTalk(ChannelMemberID(id))
        case .followerChannel: self = .followerChannel(FollowerChannelID(id))
        case nil: throw StoreError.corrupt("unknown push target kind '\(kind)'")
        }
    }

    public var description: String { "\(kind.rawValue) \(id)" }
}

/// A push to queue: the exact body and the APNs headers it goes with.
public struct OutboxMessage: Hashable, Sendable {
    public var target: PushTarget
    public var pushType: PushType
    public var topic: Topic
    public var priority: Priority
    /// `apns-expiration`, unix seconds; 0 means "now or never".
    public var expiration: Int
    /// The JSON body, byte for byte as it will be sent.
    public var payload: Data
    /// Why it is sent at this priority (the policy's reason), kept for the timeline.
    public var reason: String
    /// An alert must reach the phone even when a newer state is queued behind it.
    public var hasAlert: Bool
    /// An end (of an activity, or a leave-channel push).
    public var isEnd: Bool
    /// The policy's word that a newer push to the same target makes this one
    /// pointless (`QueuedPushRules.isSupersedable`).
    public var supersedable: Bool

    public init(target: PushTarget, pushType: PushType, topic: Topic, priority: Priority, expiration: Int,
                payload: Data, reason: String, hasAlert: Bool, isEnd: Bool, supersedable: Bool) {
        self.target = target
        self.pushType = pushType
        self.topic = topic
        self.priority = priority
        self.expiration = expiration
        self.payload = payload
        self.reason = reason
        self.hasAlert = hasAlert
        self.isEnd = isEnd
        self.supersedable = supersedable
    }

    /// The walkie-talkie member a leave-channel push is for (queuing it marks the
    /// member as leaving; once it is done with, they have left); nil for every other push.
    public var leavingMember: ChannelMemberID? {
        guard isEnd, case .pushToTalk(let member) = target else { return nil }
        return member
    }
}

extension OutboxMessage {
    /// The outbox row for a push the policy decided on: its body as the exact bytes
    /// APNs will get, and the headers it goes with. `target` says where it goes in
    /// the store's terms (the policy knows players and activities, the store devices).
    public init(_ decision: PushDecision, target: PushTarget, bundleID: String) {
        self.init(target: target, pushType: decision.pushType, topic: decision.pushType.topic(bundleID: bundleID),
                  priority: decision.priority, expiration: decision.expiration, payload: decision.body,
                  reason: decision.reason, hasAlert: decision.hasAlert, isEnd: decision.isEnd,
                  supersedable: QueuedPushRules.isSupersedable(decision))
    }

    /// The outbox rows for a tick's decisions, each to the Live Activity or
    /// followers' channel it names. A tick decides no push-to-start: those go out
    /// when an adventure starts or a follower arrives.
    public static func forTick(_ decisions: [PushDecision], bundleID: String) throws(StoreError) -> [OutboxMessage] {
        try decisions.map { decision throws(StoreError) in
            switch decision.target {
            case .liveActivity(let activity):
                return OutboxMessage(decision, target: .liveActivity(activity), bundleID: bundleID)
            case .followerChannel(let channel):
                return OutboxMessage(decision, target: .followerChannel(channel), bundleID: bundleID)
            case .pushToStart:
                throw .invalid("the policy chose \(decision.target) after a tick; only Live Activities are updated by ticks")
            }
        }
    }

    /// The outbox row for a walkie-talkie push to one channel member.
    public init(_ push: WalkieTalkiePush, to member: ChannelMemberID, bundleID: String) {
        self.init(target: .pushToTalk(member), pushType: push.pushType, topic: push.pushType.topic(bundleID: bundleID),
                  priority: push.priority, expiration: push.expiration, payload: push.body, reason: push.reason,
                  hasAlert: false, isEnd: push.isLeave, supersedable: false)
    }
}

public enum OutboxState: String, Hashable, Sendable, Codable, CaseIterable {
    case pending, sending, sent, failed, superseded, dropped
}

/// Where a claimed push goes: a device's token, or a broadcast channel APNs made.
public enum PushDestination: Hashable, Sendable, CustomStringConvertible {
    case device(PushToken)
    case channel(BroadcastChannelID)

    /// As the push log keeps it: the token's hex or the channel's id.
    public var description: String {
        switch self {
        case .device(let token): token.hex
        case .channel(let channel): channel.rawValue
        }
    }

    /// The destination a push log row names, given the kind of its target.
    public init(stored: String, for kind: PushTarget.Kind) {
        self = kind == .followerChannel ? .channel(BroadcastChannelID(stored)) : .device(PushToken(stored: stored))
    }

    public var token: PushToken? { if case .device(let token) = self { token } else { nil } }
}

/// A push the dispatcher has claimed, with the token (or channel) its target has now.
public struct ClaimedPush: Hashable, Sendable {
    public var id: OutboxID
    public var adventure: AdventureID?
    public var tick: Int?
    public var message: OutboxMessage
    public var destination: PushDestination
    /// How many times this row has been claimed, this time included.
    public var attempts: Int
    /// When the push was queued: for a tick's push, when the ticker's pass read
    /// the tick as due and decided it. A push's lag is counted from here to APNs' answer.
    public var queuedAt: Date

    /// The device token; nil for a broadcast.
    public var token: PushToken? { destination.token }

    public init(id: OutboxID, adventure: AdventureID? = nil, tick: Int? = nil, message: OutboxMessage,
                destination: PushDestination, attempts: Int, queuedAt: Date) {
        self.id = id
        self.adventure = adventure
        self.tick = tick
        self.message = message
        self.destination = destination
        self.attempts = attempts
        self.queuedAt = queuedAt
    }
}

/// An outbox row as the timeline and replay read it: the decision and what became of it.
public struct OutboxEntry: Hashable, Sendable {
    public var id: OutboxID
    public var adventure: AdventureID?
    public var tick: Int?
    public var message: OutboxMessage
    public var state: OutboxState
    /// Why it was superseded, dropped, retried or failed.
    public var outcome: String?
    public var attempts: Int
    public var createdAt: Date

    public init(id: OutboxID, adventure: AdventureID? = nil, tick: Int? = nil, message: OutboxMessage, state: OutboxState, outcome: String? = nil, attempts: Int, createdAt: Date) {
        self.id = id
        self.adventure = adventure
        self.tick = tick
        self.message = message
        self.state = state
        self.outcome = outcome
        self.attempts = attempts
        self.createdAt = createdAt
    }
}

/// What was sent to which token and what APNs answered.
public struct PushLogEntry: Hashable, Sendable {
    public var outbox: OutboxID
    public var adventure: AdventureID?
    public var target: PushTarget
    /// The token or channel it went to.
    public var destination: PushDestination
    /// The device token; nil for a broadcast.
    public var token: PushToken? { destination.token }
    public var pushType: PushType
    public var priority: Priority
    /// HTTP status from APNs; nil when no answer came (the connection failed).
    public var status: Int?
    /// APNs' reason, or the transport's error.
    public var reason: String?
    public var apnsID: String?
    public var attempts: Int
    public var sentAt: Date
    /// The tick whose decision this was: 0 for the adventure's start; nil for pushes
    /// that belong to no adventure.
    public var tick: Int?
    /// Why the policy sent it at this priority.
    public var decision: String
    /// The body exactly as sent.
    public var payload: Data

    public init(outbox: OutboxID, adventure: AdventureID? = nil, target: PushTarget, destination: PushDestination, pushType: PushType, priority: Priority, status: Int? = nil, reason: String? = nil, apnsID: String? = nil, attempts: Int, sentAt: Date, tick: Int? = nil, decision: String, payload: Data) {
        self.outbox = outbox
        self.adventure = adventure
        self.target = target
        self.destination = destination
        self.pushType = pushType
        self.priority = priority
        self.status = status
        self.reason = reason
        self.apnsID = apnsID
        self.attempts = attempts
        self.sentAt = sentAt
        self.tick = tick
        self.decision = decision
        self.payload = payload
    }
}

/// One entry of an adventure's event log.
public struct LoggedEvent: Hashable, Sendable {
    public var tick: Int
    /// Order within the tick, from 0.
    public var position: Int
    public var event: GameEvent

    public init(tick: Int, position: Int, event: GameEvent) {
        self.tick = tick
        self.position = position
        self.event = event
    }
}
