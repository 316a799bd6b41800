import Foundation
import Game
import PushPolicy
import Store
import Vocabulary
import Wire

// Response bodies. Built from the store's values, with only what a client needs:
// no key hashes, no push tokens, and an adventure's seed and random state only
// for the game master (with them a player could foresee every roll).

struct PlayerView: Codable, Equatable {
    var id: PlayerID
    var name: String
    var createdAt: Date

    init(_ player: Player) {
        id = player.id
        name = player.name
        createdAt = player.createdAt
    }
}

struct CreatedPlayerView: Codable {
    var player: PlayerView
    /// Shown this once; only its hash is stored.
    var apiKey: String
}

struct PartySummaryView: Codable, Equatable {
    var id: PartyID
    var name: String
}

struct MeView: Codable {
    var player: PlayerView
    var heroes: [HeroID]
    var parties: [PartySummaryView]
}

struct HeroesView: Codable {
    var heroes: [HeroID]
}

struct MemberView: Codable, Equatable {
    var player: PlayerID
    var hero: HeroID
    var joinedAt: Date
}

struct PartyView: Codable {
    var id: PartyID
    var name: String
    var inviteCode: String
    var createdBy: PlayerID
    var createdAt: Date
    var members: [MemberView]
    var runningAdventure: AdventureID?

    init(_ party: Party, members: [PartyMembership], runningAdventure: AdventureID?) {
        id = party.id
        name = party.name
        inviteCode = party.inviteCode.rawValue
        createdBy = party.createdBy
        createdAt = party.createdAt
        self.members = members.map { MemberView(player: $0.player, hero: $0.hero, joinedAt: $0.joinedAt) }
        self.runningAdventure = runningAdventure
    }
}

struct ActivityView: Codable {
    var activityID: ActivityID
    var adventureID: AdventureID
    /// Absent for a follower's activity.
    var hero: HeroID?
    var frequentPushesEnabled: Bool
    /// The catalog language its texts are written in.
    var language: String
    var status: LiveActivityStatus
    /// False once APNs called its last token invalid: the app should send a new one.
    var hasValidToken: Bool

    init(_ activity: LiveActivity) {
        activityID = activity.id
        adventureID = activity.adventure
        hero = activity.hero
        frequentPushesEnabled = activity.frequentUpdates
        language = activity.locale
        status = activity.status
        hasValidToken = activity.token != nil
    }
}

struct DeviceView: Codable {
    var deviceID: DeviceID
    var language: String
    var hasValidPushToStartToken: Bool
    var updatedAt: Date

    init(_ device: Device) {
        deviceID = device.id
        language = device.locale
        hasValidPushToStartToken = device.pushToStartToken != nil
        updatedAt = device.updatedAt
    }
}

struct QueuedCommandView: Codable {
    var commandID: Int64
    var adventureID: AdventureID
    /// "usePotion" or "endAdventure".
    var type: String
    var player: PlayerID?
    var hero: HeroID?
    var receivedAt: Date

    init(_ queued: QueuedCommand, adventure: AdventureID) {
        commandID = queued.id.rawValue
        adventureID = adventure
        receivedAt = queued.receivedAt
        switch queued.command {
        case .usePotion(let player, let hero):
            type = "usePotion"
            self.player = player
            self.hero = hero
        case .endAdventure:
            type = "endAdventure"
        }
    }
}

struct AdventureView: Codable {
    struct HeroView: Codable {
        var hero: HeroID
        var player: PlayerID
        var health: Int
        var maxHealth: Int
        var knockedDown: Bool
    }

    struct BossView: Codable {
        var boss: BossID
        var rank: BossRank
        var health: Int
        var maxHealth: Int
        var shield: Int
        var enraged: Bool
    }

    struct StateView: Codable {
        var tick: Int
        var bossIndex: Int
        var boss: BossView
        var heroes: [HeroView]
        var potions: Int
    }

    var id: AdventureID
    var partyID: PartyID
    var route: RouteID
    var roster: [PartyMember]
    var tickInterval: Int
    var timeLimit: Int
    /// A decimal string (a JSON number loses precision past 2^53); game master only.
    var seed: String?
    var contentVersion: String
    /// Unix seconds, like every time in an adventure.
    var startedAt: Int
    var status: AdventureStatus
    var lastTick: Int
    var nextTickAt: Int?
    var endedAt: Int?
    /// What players outside the party follow it with; absent for a private
    /// adventure. Shown to its members and the game master, who share it.
    var followCode: String?
    var state: StateView

    init(_ adventure: StoredAdventure, showSeed: Bool) {
        let state = adventure.state
        id = adventure.id
        partyID = adventure.party
        route = adventure.setup.route
        roster = adventure.setup.party
        tickInterval = adventure.setup.tickInterval
        timeLimit = adventure.setup.timeLimit
        seed = showSeed ? String(adventure.setup.seed) : nil
        contentVersion = adventure.contentVersion
        startedAt = adventure.startedAt
        status = adventure.status
        lastTick = adventure.lastTick
        nextTickAt = adventure.nextTickAt
        endedAt = adventure.endedAt
        followCode = adventure.followCode?.rawValue
        self.state = StateView(
            tick: state.tick, bossIndex: state.bossIndex,
            boss: BossView(boss: state.boss.boss, rank: state.boss.rank, health: state.boss.health,
                           maxHealth: state.boss.maxHealth, shield: state.boss.shield, enraged: state.boss.enraged),
            heroes: state.heroes.map {
                HeroView(hero: $0.hero, player: $0.player, health: $0.health, maxHealth: $0.maxHealth,
                         knockedDown: $0.isKnockedDown)
            },
            potions: state.potions)
    }
}

struct AdventureListView: Codable {
    var adventures: [AdventureView]
}

struct EventsView: Codable {
    struct Entry: Codable {
        var tick: Int
        /// Unix seconds of the tick.
        var time: Int
        var position: Int
        var event: GameEvent
    }

    var adventureID: AdventureID
    var events: [Entry]
}

struct PushesView: Codable {
    struct Entry: Codable {
        var outboxID: Int64
        var targetKind: PushTarget.Kind
        var targetID: String
        var pushType: PushType
        var priority: Priority
        /// APNs' HTTP status; absent when no answer came.
        var status: Int?
        var reason: String?
        var apnsID: String?
        var attempts: Int
        var sentAt: Date
        /// The tick that decided it: 0 for the pushes sent as the adventure starts.
        var tick: Int?
        /// Why the push policy sent it at this priority.
        var why: String
        /// The payload's `event`: start, update or end (absent for other push types).
        var event: String?
        /// The alert's title `loc-key`, when the push carried an alert.
        var alert: String?
        var sound: String?

        init(_ entry: PushLogEntry) {
            outboxID = entry.outbox.rawValue
            targetKind = entry.target.kind
            targetID = entry.target.id
            pushType = entry.pushType
            priority = entry.priority
            status = entry.status
            reason = entry.reason
            apnsID = entry.apnsID
            attempts = entry.attempts
            sentAt = entry.sentAt
            tick = entry.tick
            why = entry.decision
            // Only Live Activity bodies have these; other push types leave them out.
            if let payload = try? JSONDecoder().decode(LiveActivityPayload.self, from: entry.payload) {
                event = payload.event.name
                if case .localized(let key, _) = payload.alert?.title { alert = key }
                sound = payload.alert?.sound
            }
        }
    }

    var adventureID: AdventureID
    var pushes: [Entry]
}

/// What a follower gets: the channel to listen on (iOS 18) with what its Live
/// Activity starts with, or word of the push-to-start that starts it.
struct FollowingView: Codable {
    struct ChannelView: Codable {
        /// For `Activity.request(…, pushType: .channel(id))`.
        var id: BroadcastChannelID
        /// APNs' `message-storage-policy`: 1 keeps the newest broadcast for a device
        /// that starts listening or comes back later, 0 keeps nothing.
        var messageStoragePolicy: Int
    }

    var adventureID: AdventureID
    var player: PlayerID
    var delivery: FollowerDelivery
    /// The catalog language of every text the follower gets.
    var language: String
    var channel: ChannelView?
    /// With a channel: the activity's attributes (no hero of its own) and the
    /// party's state now, for `ActivityContent(state:staleDate:)`.
    var attributes: AdventureAttributes?
    var contentState: AdventureAttributes.ContentState?
    var staleDate: Date?
    /// Per token: whether this follow queued the push-to-start (again while the
    /// follower's activity has not registered its token).
    var pushToStartQueued: Bool?
    /// Per token after asking for a channel: why none could be had, so the follow
    /// fell back to the device's push-to-start.
    var channelUnavailable: String?
}

struct HealthView: Codable {
    var status: String
    var migrations: Int?
    var node: String
    var adventuresHeld: Int
    var liveNodes: Int?
    var apns: APNsEndpointKind
}

struct ReadinessView: Codable {
    struct Check: Codable {
        var name: String
        var ok: Bool
        var reason: String?
    }

    /// A background loop whose last try failed, though the node can still work.
    struct Trouble: Codable {
        var loop: String
        var reason: String
        var failures: Int
        var sinceSeconds: Int
    }

    var status: String
    var node: String
    var checks: [Check]
    var troubles: [Trouble]
}
