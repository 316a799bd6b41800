import Foundation
import GRDB
import Store
import Vocabulary

extension SQLiteStore {
    /// Many answers in one write, as a busy dispatcher collects them. Each is
    /// recorded in its own savepoint: one that is refused (answered twice, say)
    /// leaves the others recorded. Returns the refusals, in the order given.
    @discardableResult
    public func record(_ results: [PushResult], at now: Date) async throws -> [StoreError?] {
        try await write { [claimant] db in try Self.record(results, by: claimant, at: now, db) }
    }

    /// Records the answers, then claims up to `limit` pushes, in one write: under
    /// load every write waits for the ticker's commit before it, and a dispatcher
    /// that recorded and claimed in two writes waited twice as often.
    public func recordAndClaim(_ results: [PushResult], limit: Int,
                               now: Date) async throws -> (refusals: [StoreError?], claimed: [ClaimedPush]) {
        try await write { [claimant] db in
            (try Self.record(results, by: claimant, at: now, db), try Self.claim(limit: limit, by: claimant, now: now, db))
        }
    }

    static func record(_ results: [PushResult], by claimant: String, at now: Date, _ db: Database) throws -> [StoreError?] {
        guard !results.isEmpty else { return [] }
        let loggedAt = now.databaseValue
        let (savepoint, statements) = (try ItemSavepoint(db), try AnswerStatements(db))
        return try results.map { result in
            try Self.refusal {
                try savepoint.run {
                    try Self.record(result.outcome, for: result.push, by: claimant, at: now, loggedAt: loggedAt, statements, db)
                }
            }
        }
    }

    static func record(_ outcome: PushOutcome, for push: ClaimedPush, by claimant: String, at now: Date,
                       loggedAt: DatabaseValue, _ statements: AnswerStatements, _ db: Database) throws {
        let settlement = OutboxRules.settlement(of: outcome)
        guard settlement.state != .pending else {
            try requireSending(push, by: claimant, db)
            // A newer push to its target was queued while this one was out: it
            // carries a newer state, so this one is not sent again (nor shown waiting).
            if push.message.supersedable,
               try hasNewerPush(to: push.message.target, than: push.id.rawValue,
                                upTo: Int64.fetchOne(db.cachedStatement(sql: "SELECT newerQueued FROM outbox WHERE id = ?"),
                                                     arguments: [push.id.rawValue]), db) {
                try supersede(push.id.rawValue, db)
            } else {
                try db.execute(sql: "UPDATE outbox SET state = 'pending', nextAttemptAt = ?, outcome = ? WHERE id = ?",
                               arguments: [settlement.nextAttempt, settlement.outcome, push.id.rawValue])
            }
            return
        }
        try settle(push, by: claimant, as: settlement.state, outcome: settlement.outcome, statements.settle, db)
        if let line = settlement.log {
            try log(push, status: line.status, reason: line.reason, apnsID: line.apnsID, attempts: line.attempts, at: loggedAt,
                    statements.log)
        }
        switch (outcome, push.destination, push.message.target) {
        case (.tokenInvalid(_, let reason, let since, _, _), .device(let token), _):
            try invalidate(token, reason: reason, since: since, at: now, db)
        case (.channelGone(_, let reason, _, _), .channel(let apnsID), .followerChannel(let channel)):
            try channelGone(channel, apnsID: apnsID, reason: reason, at: now, db)
        default:
            break
        }
        // The member told to leave has left once that push is done with, whatever APNs said.
        try finishLeaving(push.message, db)
    }

    private static func invalidate(_ token: PushToken, reason: String, since: Date?, at now: Date, _ db: Database) throws {
        // Only tokens registered before APNs' timestamp; without one, any.
        let arguments: StatementArguments = [token.hex, since, since]
        let activities = try String.fetchAll(db, sql: """
            SELECT activity FROM activityToken WHERE token = ? AND invalidatedAt IS NULL
            AND (? IS NULL OR registeredAt <= ?)
            """, arguments: arguments)
        let devices = try String.fetchAll(db, sql: """
            SELECT id FROM device WHERE pushToStartToken = ? AND pushToStartTokenInvalidAt IS NULL
            AND (? IS NULL OR pushToStartTokenRegisteredAt <= ?)
            """, arguments: arguments)
        let members = try String.fetchAll(db, sql: """
            SELECT id FROM channelMember WHERE token = ? AND tokenInvalidAt IS NULL
            AND (? IS NULL OR tokenRegisteredAt <= ?)
            """, arguments: arguments)
        for activity in activities {
            try db.execute(sql: """
                UPDATE activityToken SET invalidatedAt = ?, invalidReason = ? WHERE activity = ? AND invalidatedAt IS NULL
                """, arguments: [now, reason, activity])
        }
        for device in devices {
            try db.execute(sql: """
                UPDATE device SET pushToStartTokenInvalidAt = ?, pushToStartTokenInvalidReason = ? WHERE id = ?
                """, arguments: [now, reason, device])
        }
        for member in members {
            try db.execute(sql: """
                UPDATE channelMember SET tokenInvalidAt = ?, tokenInvalidReason = ?,
                    status = CASE status WHEN 'leaving' THEN 'left' ELSE status END WHERE id = ?
                """, arguments: [now, reason, member])
        }
        // These targets now have no valid token: what was waiting for them goes nowhere.
        for (kind, ids) in [("liveActivity", activities), ("pushToStart", devices), ("pushToTalk", members)] {
            for id in ids {
                try db.execute(sql: """
                    UPDATE outbox SET state = 'dropped', outcome = ? WHERE state = 'pending' AND targetKind = ? AND targetID = ?
                    """, arguments: ["its token was found invalid: \(reason)", kind, id])
            }
        }
    }
}
