import Foundation
import GRDB
import PushPolicy
import Store
import Vocabulary

// The steps the outbox operations share, each run inside the caller's transaction.
extension SQLiteStore {
    /// The token a push to `target` goes to now, or why it cannot go anywhere.
    static func currentToken(of target: PushTarget, isEnd: Bool, _ db: Database) throws -> TokenLookup {
        switch target {
        case .liveActivity(let id):
            let status = try String.fetchOne(db.cachedStatement(sql: "SELECT status FROM liveActivity WHERE id = ?"),
                                             arguments: [id.rawValue])
            let token = try String.fetchOne(db.cachedStatement(sql: """
                SELECT token FROM activityToken WHERE activity = ? AND invalidatedAt IS NULL
                """), arguments: [id.rawValue])
            return .liveActivity(status: status, validToken: token)
        case .pushToStart(let id):
            let device = try DeviceRow.fetchOne(db, key: id.rawValue)
            return .pushToStart(deviceIsKnown: device != nil, validToken: device?.value.pushToStartToken?.hex)
        case .pushToTalk(let id):
            let member = try Row.fetchOne(db, sql: """
                SELECT status, token, tokenInvalidAt FROM channelMember WHERE id = ?
                """, arguments: [id.rawValue])
            let token: String? = member?["tokenInvalidAt"] as Date? == nil ? member?["token"] : nil
            return .pushToTalk(status: member?["status"], validToken: token, isLeavePush: isEnd)
        }
    }

    /// The pushes waiting for a target that the policy marked supersedable, when a
    /// newer push to it is queued. Found first and then updated by id: an UPDATE
    /// that searched the index it changes would gather the rows in a temporary
    /// table on every push, though there is mostly nothing to supersede.
    static let supersedableSQL = """
        SELECT id FROM outbox INDEXED BY outbox_pendingSupersedable
        WHERE state = 'pending' AND supersedable AND targetKind = ? AND targetID = ?
        """

    static func supersedeWaitingPushes(to target: PushTarget, _ db: Database) throws {
        let waiting = try Int64.fetchAll(db.cachedStatement(sql: supersedableSQL),
                                         arguments: [target.kind.rawValue, target.id])
        guard !waiting.isEmpty else { return }
        let supersede = try db.cachedStatement(sql: "UPDATE outbox SET state = 'superseded', outcome = ? WHERE id = ?")
        for id in waiting {
            try supersede.execute(arguments: [QueuedPushRules.supersededReason, id])
        }
    }

    static func drop(_ row: OutboxRow, because reason: String, _ db: Database) throws {
        try db.execute(sql: "UPDATE outbox SET state = 'dropped', outcome = ? WHERE id = ?", arguments: [reason, row.id])
    }

    /// A push's answer can be recorded once, only while it is being sent, and only
    /// by the store that claimed it: one whose claim was recovered lost it.
    static func requireSending(_ push: ClaimedPush, by claimant: String, _ db: Database) throws {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT state, claimedBy FROM outbox WHERE id = ?"),
                                         arguments: [push.id.rawValue])
        else { throw StoreError.notFound("outbox row", id: push.id.description) }
        let state: String = row[0], holder: String? = row[1]
        guard state == OutboxState.sending.rawValue else {
            throw StoreError.conflict("outbox row \(push.id) is \(state), not sending; its answer was recorded already or it was never claimed")
        }
        guard holder == claimant else {
            throw StoreError.conflict("outbox row \(push.id) was claimed again after this claim was taken for abandoned")
        }
    }

    static func settle(_ push: ClaimedPush, by claimant: String, as state: OutboxState, outcome: String?, _ db: Database) throws {
        try requireSending(push, by: claimant, db)
        try db.cachedStatement(sql: "UPDATE outbox SET state = ?, outcome = ? WHERE id = ?")
            .execute(arguments: [state.rawValue, outcome, push.id.rawValue])
    }

    static func log(_ push: ClaimedPush, status: Int?, reason: String?, apnsID: String?, attempts: Int, at now: Date,
                    _ db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO pushLog (outbox, adventure, targetKind, targetID, token, pushType, priority, status, reason,
                                 apnsID, attempts, sentAt)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [
                push.id.rawValue, push.adventure?.rawValue, push.message.target.kind.rawValue, push.message.target.id,
                push.token.hex, push.message.pushType.rawValue, push.message.priority.rawValue, status, reason, apnsID,
                attempts, now,
            ])
    }

    /// Once the leave push to a channel member is done with (sent, refused or
    /// undeliverable), the member has left and their ephemeral token is dropped.
    static func finishLeaving(_ message: OutboxMessage, _ db: Database) throws {
        guard message.isEnd, case .pushToTalk(let member) = message.target else { return }
        try db.execute(sql: "UPDATE channelMember SET status = 'left', token = NULL WHERE id = ? AND status = 'leaving'",
                       arguments: [member.rawValue])
    }
}
