import Foundation
import GRDB
import PushPolicy
import Store
import Vocabulary

// The steps that queue and settle pushes, shared by several jobs, each run inside
// the caller's transaction.
extension SQLiteStore {
    /// Queues one push, its progress and its message (v12), one id for both, and
    /// returns the id; it supersedes the pushes still waiting for its target that
    /// the policy marked supersedable, and marks those being sent
    /// (`openSupersedableSQL`). A leave-channel push (an end to a channel member) also
    /// marks the member as leaving: their token is kept until that push is done
    /// with, then dropped. `queuedAt` is the instant as stored
    /// (`Date.databaseValue`); `inTickRange` says the tick's row will name it (v15).
    /// `statements`: those a batch looked up once (`QueueStatements`).
    @discardableResult
    static func enqueue(_ message: OutboxMessage, adventure: AdventureID?, tick: Int?, at queuedAt: DatabaseValue,
                        inTickRange: Bool = false, statements: QueueStatements? = nil, _ db: Database) throws -> Int64 {
        let statements = try statements ?? QueueStatements(db)
        let open = try openSupersedablePushes(to: message.target, statements.openSupersedable)
        for push in open where !push.isSending { try supersede(push.id, db) }
        try statements.insertProgress.run {
            $0.add(message.target.kind.rawValue); $0.add(message.target.id); $0.add(message.supersedable); $0.add(queuedAt)
        }
        let id = db.lastInsertedRowID
        for push in open where push.isSending {
            try db.cachedStatement(sql: "UPDATE outbox SET newerQueued = ? WHERE id = ?").run { $0.add(id); $0.add(push.id) }
        }
        try statements.insertMessage.run {
            $0.add(id); $0.add(adventure?.rawValue); $0.add(message.target.kind.rawValue); $0.add(message.target.id)
            $0.add(message.pushType.rawValue); $0.add(message.topic.rawValue); $0.add(message.priority.rawValue)
            $0.add(message.expiration); $0.add(StoredPayload.stored(message.payload)); $0.add(message.reason); $0.add(message.hasAlert)
            $0.add(message.isEnd); $0.add(tick); $0.add(queuedAt); $0.add(inTickRange)
        }
        if let member = message.leavingMember {
            try db.execute(sql: "UPDATE channelMember SET status = 'leaving', leftAt = ? WHERE id = ? AND status = 'joined'",
                           arguments: [queuedAt, member.rawValue])
        }
        return id
    }

    /// The statements queuing a push runs, looked up in GRDB's cache once for a
    /// batch of ticks rather than for each push (a lookup hashes the whole text).
    struct QueueStatements {
        let openSupersedable: Statement, insertProgress: Statement, insertMessage: Statement

        init(_ db: Database) throws {
            openSupersedable = try db.cachedStatement(sql: SQLiteStore.openSupersedableSQL)
            insertProgress = try db.cachedStatement(sql: """
                INSERT INTO outbox (targetKind, targetID, supersedable, state, attempts, nextAttemptAt) VALUES (?, ?, ?, 'pending', 0, ?)
                """)
            insertMessage = try db.cachedStatement(sql: """
                INSERT INTO outboxMessage (id, adventure, targetKind, targetID, pushType, topic, priority, expiration, payload, reason,
                                           hasAlert, isEnd, tick, createdAt, inTickRange)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        }
    }

    /// The token a push to `target` goes to now, or why it cannot go anywhere. A
    /// Live Activity's status and valid token come read with the push
    /// (`nextPendingSQL`); the other targets' rows are read here.
    static func currentToken(of target: PushTarget, isEnd: Bool, activity: (status: String?, token: String?),
                             _ db: Database) throws -> TokenLookup {
        switch target {
        case .liveActivity:
            return .liveActivity(status: activity.status, validToken: activity.token)
        case .pushToStart(let id):
            let device = try DeviceRow.fetchOne(db, key: id.rawValue)
            return .pushToStart(deviceIsKnown: device != nil, validToken: device?.value.pushToStartToken?.hex)
        case .pushToTalk(let id):
            let member = try Row.fetchOne(db, sql: """
                SELECT status, token, tokenInvalidAt FROM channelMember WHERE id = ?
                """, arguments: [id.rawValue])
            let token: String? = member?["tokenInvalidAt"] as Date? == nil ? member?["token"] : nil
            return .pushToTalk(status: member?["status"], validToken: token, isLeavePush: isEnd)
        case .followerChannel(let id):
            let channel = try Row.fetchOne(db.cachedStatement(sql: "SELECT state, apnsChannelID FROM followerChannel WHERE id = ?"),
                                           arguments: [id.rawValue])
            return .followerChannel(state: channel?[0], apnsID: channel?[1])
        }
    }

    /// The pushes to a target that the policy marked supersedable and that a newer
    /// push to it would supersede: those waiting, which it supersedes, and those
    /// being sent, which learn that it was queued (`newerQueued`): if one comes
    /// back for a retry, it is superseded instead (`hasNewerPush`). Those waiting
    /// are superseded as each newer push comes, so only a push that was out when a
    /// newer one came can ever need the mark. One read for both, each through the
    /// partial index of its state: an UPDATE that searched the index it changes
    /// would gather the rows in a temporary table on every push, though there is
    /// mostly nothing to supersede.
    static let openSupersedableSQL = """
        SELECT id, 0 FROM outbox INDEXED BY outbox_pendingSupersedable
        WHERE state = 'pending' AND supersedable AND targetKind = ?1 AND targetID = ?2
        UNION ALL
        SELECT id, 1 FROM outbox INDEXED BY outbox_sendingSupersedable
        WHERE state = 'sending' AND supersedable AND targetKind = ?1 AND targetID = ?2
        """

    /// `statement` is `openSupersedableSQL`'s.
    static func openSupersedablePushes(to target: PushTarget, _ statement: Statement) throws -> [(id: Int64, isSending: Bool)] {
        var open: [(id: Int64, isSending: Bool)] = []
        try statement.forEachRow({ $0.add(target.kind.rawValue); $0.add(target.id) }) { row in
            open.append((id: row.int64(0), isSending: row.bool(1)))
        }
        return open
    }

    /// A newer push to its target makes this one pointless (`QueuedPushRules.isSupersedable`).
    static func supersede(_ id: Int64, _ db: Database) throws {
        try db.cachedStatement(sql: "UPDATE outbox SET state = 'superseded', outcome = ? WHERE id = ?")
            .run { $0.add(QueuedPushRules.supersededReason); $0.add(id) }
    }

    static func drop(_ id: Int64, because reason: String, _ db: Database) throws {
        try db.execute(sql: "UPDATE outbox SET state = 'dropped', outcome = ? WHERE id = ?", arguments: [reason, id])
    }

    /// Refused unless the push is being sent by this store (`OutboxRules.answerRefusal`).
    static func requireSending(_ push: ClaimedPush, by claimant: String, _ db: Database) throws {
        let (state, holder) = try progress(of: push, db)
        if let refusal = OutboxRules.answerRefusal(push.id, state: state, holder: holder, claimant: claimant) {
            throw refusal
        }
    }

    /// The push's state and the store whose claim it is, as stored now.
    private static func progress(of push: ClaimedPush, _ db: Database) throws -> (state: String?, holder: String?) {
        let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT state, claimedBy FROM outbox WHERE id = ?"),
                                   arguments: [push.id.rawValue])
        return (row?[0], row.flatMap { $0[1] })
    }

    /// Settles a push being sent by this store, in one statement; only when it
    /// changed nothing is the row read again to say why (`OutboxRules.unsettledRefusal`).
    static func settle(_ push: ClaimedPush, by claimant: String, as state: OutboxState, outcome: String?, _ update: Statement,
                       _ db: Database) throws {
        try update.run { $0.add(state.rawValue); $0.add(outcome); $0.add(push.id.rawValue); $0.add(claimant) }
        if !db.changedRows {
            let (stored, holder) = try progress(of: push, db)
            throw OutboxRules.unsettledRefusal(push.id, state: stored, holder: holder, claimant: claimant)
        }
    }

    /// `now` is the instant as stored (`Date.databaseValue`).
    static func log(_ push: ClaimedPush, status: Int?, reason: String?, apnsID: String?, attempts: Int, at now: DatabaseValue,
                    _ insert: Statement) throws {
        try insert.run {
            $0.add(push.id.rawValue); $0.add(push.adventure?.rawValue); $0.add(push.message.target.kind.rawValue)
            $0.add(push.message.target.id); $0.add(push.destination.description); $0.add(push.message.pushType.rawValue)
            $0.add(push.message.priority.rawValue); $0.add(status); $0.add(reason); $0.add(apnsID); $0.add(attempts); $0.add(now)
        }
    }

    /// The statements each answer of a batch runs (`settle`, `log`), looked up in
    /// GRDB's cache once a batch (a lookup hashes the whole text).
    struct AnswerStatements {
        let settle: Statement, log: Statement

        init(_ db: Database) throws {
            settle = try db.cachedStatement(sql: """
                UPDATE outbox SET state = ?, outcome = ? WHERE id = ? AND state = 'sending' AND claimedBy = ?
                """)
            log = try db.cachedStatement(sql: """
                INSERT INTO pushLog (outbox, adventure, targetKind, targetID, token, pushType, priority, status, reason,
                                     apnsID, attempts, sentAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        }
    }

    /// Once the leave push to a channel member is done with (sent, refused or
    /// undeliverable), the member has left and their ephemeral token is dropped.
    static func finishLeaving(_ message: OutboxMessage, _ db: Database) throws {
        guard let member = message.leavingMember else { return }
        try db.execute(sql: "UPDATE channelMember SET status = 'left', token = NULL WHERE id = ? AND status = 'leaving'",
                       arguments: [member.rawValue])
    }
}
