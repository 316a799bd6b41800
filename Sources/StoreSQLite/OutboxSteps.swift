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
            guard let status = try String.fetchOne(db.cachedStatement(sql: "SELECT status FROM liveActivity WHERE id = ?"),
                                                   arguments: [id.rawValue])
            else { return .unreachable("the activity is unknown") }
            guard status == LiveActivityStatus.active.rawValue else { return .unreachable("the activity is \(status)") }
            let token = try String.fetchOne(db.cachedStatement(sql: """
                SELECT token FROM activityToken WHERE activity = ? AND invalidatedAt IS NULL
                """), arguments: [id.rawValue])
            return token.map { .token(PushToken(stored: $0)) } ?? .unreachable("the activity has no valid token")
        case .pushToStart(let id):
            guard let device = try DeviceRow.fetchOne(db, key: id.rawValue) else { return .unreachable("the device is unknown") }
            return device.value.pushToStartToken.map { .token($0) } ?? .unreachable("the device has no valid push-to-start token")
        case .pushToTalk(let id):
            guard let member = try Row.fetchOne(db, sql: """
                SELECT status, token, tokenInvalidAt FROM channelMember WHERE id = ?
                """, arguments: [id.rawValue])
            else { return .unreachable("the channel member is unknown") }
            let status: String = member["status"]
            guard WalkieTalkiePolicy.reaches(isListening: status == ChannelMemberStatus.joined.rawValue,
                                             isLeaving: status == ChannelMemberStatus.leaving.rawValue, isLeavePush: isEnd)
            else { return .unreachable("the member has left the channel") }
            guard let token: String = member["token"], member["tokenInvalidAt"] as Date? == nil else {
                return .unreachable("the channel member has no valid token")
            }
            return .token(PushToken(stored: token))
        }
    }

    enum TokenLookup {
        case token(PushToken)
        /// Why the push cannot go anywhere: it is dropped with this as its outcome.
        case unreachable(String)
    }

    /// The pushes waiting for a target that the policy marked supersedable, when a
    /// newer push to it is queued.
    static let supersedeSQL = """
        UPDATE outbox INDEXED BY outbox_pendingSupersedable SET state = 'superseded', outcome = ?
        WHERE state = 'pending' AND supersedable AND targetKind = ? AND targetID = ?
        """

    static func drop(_ row: OutboxRow, because reason: String, _ db: Database) throws {
        try db.execute(sql: "UPDATE outbox SET state = 'dropped', outcome = ? WHERE id = ?", arguments: [reason, row.id])
    }

    /// A push's answer can be recorded once, and only while it is being sent.
    static func requireSending(_ push: ClaimedPush, _ db: Database) throws {
        guard let state = try String.fetchOne(db.cachedStatement(sql: "SELECT state FROM outbox WHERE id = ?"),
                                              arguments: [push.id.rawValue])
        else { throw StoreError.notFound("outbox row", id: push.id.description) }
        guard state == OutboxState.sending.rawValue else {
            throw StoreError.conflict("outbox row \(push.id) is \(state), not sending; its answer was recorded already or it was never claimed")
        }
    }

    static func settle(_ push: ClaimedPush, as state: OutboxState, outcome: String?, _ db: Database) throws {
        try requireSending(push, db)
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
