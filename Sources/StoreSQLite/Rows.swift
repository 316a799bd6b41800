import Foundation
import Game
import GRDB
import PushPolicy
import Store
import Vocabulary

// The tables as GRDB records. Columns match the schema's names; JSON columns hold
// `Codable` values, which GRDB encodes as JSON text.

struct PlayerRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "player"
    var id: String
    var name: String
    var apiKeyHash: Data
    var createdAt: Date

    var value: Player { Player(id: PlayerID(id), name: name, createdAt: createdAt) }
}

struct PartyRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "party"
    var id: String
    var name: String
    var inviteCode: String
    var createdBy: String
    var createdAt: Date

    func value() throws -> Party {
        guard let code = InviteCode(typed: inviteCode) else { throw StoreError.corrupt("invite code of party \(id)") }
        return Party(id: PartyID(id), name: name, inviteCode: code, createdBy: PlayerID(createdBy), createdAt: createdAt)
    }
}

struct MembershipRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "membership"
    var party: String
    var player: String
    var heroID: String
    var joinedAt: Date

    var value: PartyMembership {
        PartyMembership(party: PartyID(party), player: PlayerID(player), hero: HeroID(heroID), joinedAt: joinedAt)
    }
}

/// Read by key; the push-to-start registration writes it with a cached upsert.
struct DeviceRow: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "device"
    var id: String
    var player: String
    var pushToStartToken: String?
    var pushToStartTokenRegisteredAt: Date?
    var pushToStartTokenInvalidAt: Date?
    var pushToStartTokenInvalidReason: String?
    var locale: String
    var updatedAt: Date

    var value: Device {
        let valid = pushToStartTokenInvalidAt == nil ? pushToStartToken.map(PushToken.init(stored:)) : nil
        return Device(id: DeviceID(id), player: PlayerID(player), pushToStartToken: valid, locale: locale, updatedAt: updatedAt)
    }
}

struct LiveActivityRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "liveActivity"
    var id: String
    var player: String
    var adventure: String
    /// Nil for a follower's activity.
    var heroID: String?
    var frequentUpdates: Bool
    var locale: String
    var status: LiveActivityStatus
    var createdAt: Date

    var stored: ActivityRules.Stored {
        ActivityRules.Stored(player: PlayerID(player), adventure: AdventureID(adventure), hero: heroID.map(HeroID.init),
                             status: status)
    }

    func value(token: String?, ledger: BudgetLedger) -> LiveActivity {
        LiveActivity(id: ActivityID(id), player: PlayerID(player), adventure: AdventureID(adventure), hero: heroID.map(HeroID.init),
                     frequentUpdates: frequentUpdates, locale: locale, status: status,
                     token: token.map(PushToken.init(stored:)), ledger: ledger, createdAt: createdAt)
    }

    /// A member's activity as the policy sees it; nil for a follower's.
    var recipient: LiveActivityRecipient? {
        heroID.map { LiveActivityRecipient(activityID: ActivityID(id), player: PlayerID(player), hero: HeroID($0),
                                           frequentUpdates: frequentUpdates, language: locale) }
    }
}

struct ActivityTokenRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "activityToken"
    var id: Int64?
    var activity: String
    var token: String
    var registeredAt: Date
    var invalidatedAt: Date?
    var invalidReason: String?
}

/// Read back; `startAdventure` writes the row with its own statement.
struct AdventureRow: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "adventure"
    var id: String
    var party: String
    var routeID: String
    var contentVersion: String
    var seed: String
    var roster: [PartyMember]
    var tickInterval: Int
    var timeLimit: Int
    var startedAt: Int
    var tickPhase: Int
    var status: AdventureStatus
    var state: AdventureState
    var lastTick: Int
    var nextTickAt: Int?
    var endedAt: Int?
    var followCode: String?
    /// Whether a followers' channel of the adventure has ever opened (nil in a file from before followers).
    var hasFollowerChannels: Bool?

    func value() throws -> StoredAdventure {
        let seed = try StoredValues.seed(self.seed, ofAdventure: id)
        let setup = AdventureSetup(route: RouteID(routeID), party: roster, tickInterval: tickInterval,
                                   timeLimit: timeLimit, seed: seed)
        let code = try followCode.map { text throws(StoreError) in try StoredValues.followCode(text, ofAdventure: id) }
        return StoredAdventure(id: AdventureID(id), party: PartyID(party), setup: setup, contentVersion: contentVersion,
                               startedAt: startedAt, tickPhase: tickPhase, state: state, lastTick: lastTick, nextTickAt: nextTickAt,
                               endedAt: endedAt, followCode: code)
    }
}

struct CommandRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "command"
    var id: Int64?
    var adventure: String
    var command: String
    var receivedAt: Date
    var tick: Int?

    func decodedCommand() throws -> Command { try CommandJSON.decode(command) }
}

/// A push as read back for the push log and replay: its progress (`o`, the
/// outbox) and its message (`m`), selected as `columns`. `SQLiteStore.enqueue`
/// writes both rows with cached statements.
struct OutboxRow: Codable, FetchableRecord {
    static let columns = """
        o.id, m.adventure, m.targetKind, m.targetID, m.pushType, m.topic, m.priority, m.expiration, m.payload, m.reason,
        m.hasAlert, m.isEnd, o.supersedable, m.tick, o.state, o.outcome, o.attempts, o.nextAttemptAt, o.claimedAt, m.createdAt
        """

    var id: Int64?
    var adventure: String?
    var targetKind: String
    var targetID: String
    var pushType: String
    var topic: String
    var priority: Int
    var expiration: Int
    var payload: Data
    var reason: String
    var hasAlert: Bool
    var isEnd: Bool
    var supersedable: Bool
    var tick: Int?
    var state: OutboxState
    var outcome: String?
    var attempts: Int
    var nextAttemptAt: Date
    var claimedAt: Date?
    var createdAt: Date

    func message() throws -> OutboxMessage {
        let priority = try StoredValues.priority(self.priority, ofOutboxRow: nil)
        return OutboxMessage(target: try PushTarget(kind: targetKind, id: targetID), pushType: try Self.pushType(pushType), topic: Topic(rawValue: topic),
                             priority: priority, expiration: expiration, payload: try StoredPayload.payload(fromStored: payload), reason: reason,
                             hasAlert: hasAlert, isEnd: isEnd, supersedable: supersedable)
    }

    static func pushType(_ stored: String) throws -> PushType { try StoredValues.pushType(stored) }

    func entry() throws -> OutboxEntry {
        OutboxEntry(id: OutboxID(id!), adventure: adventure.map(AdventureID.init), tick: tick, message: try message(),
                    state: state, outcome: outcome, attempts: attempts, createdAt: createdAt)
    }
}

/// Read back for the push log; written by `SQLiteStore.log` with a cached statement.
struct PushLogRow: Codable, FetchableRecord {
    var id: Int64?
    var outbox: Int64
    var adventure: String?
    var targetKind: String
    var targetID: String
    var token: String
    var pushType: String
    var priority: Int
    var status: Int?
    var reason: String?
    var apnsID: String?
    var attempts: Int
    var sentAt: Date

    /// With the decision of the outbox row it sent.
    func entry(tick: Int?, decision: String, payload: Data) throws -> PushLogEntry {
        let priority = try StoredValues.priorityInPushLog(self.priority)
        return PushLogEntry(outbox: OutboxID(outbox), adventure: adventure.map(AdventureID.init),
                            target: try PushTarget(kind: targetKind, id: targetID),
                            destination: PushDestination(stored: token, for: try PushTarget(kind: targetKind, id: targetID).kind),
                            pushType: try OutboxRow.pushType(pushType), priority: priority, status: status, reason: reason, apnsID: apnsID,
                            attempts: attempts, sentAt: sentAt, tick: tick, decision: decision,
                            payload: try StoredPayload.payload(fromStored: payload))
    }
}
