import Foundation
import GRDB
import PushPolicy
import Store
import Vocabulary

extension SQLiteStore {
    /// Takes up to `limit` due pushes for sending, in the order they were queued,
    /// each with the token its target has at this moment, and marks them `sending`.
    /// On the way, in the same transaction:
    /// - a push the policy marked supersedable, with a newer push to its target
    ///   queued, being sent or sent, is `superseded`. Queuing a push supersedes the
    ///   older ones waiting (`enqueue`); what is left to catch here is an older push
    ///   that came back for a retry after a newer one was claimed;
    /// - a push whose target has no valid token, whose activity has ended, or whose
    ///   expiration has passed (`QueuedPushRules.hasExpired`) is `dropped`.
    static func claim(limit: Int, by claimant: String, now: Date, _ db: Database) throws -> [ClaimedPush] {
        guard limit > 0 else { return [] }
        var claimed: [ClaimedPush] = []
        var after: Int64 = 0
        let nowSeconds = Int(now.timeIntervalSince1970)
        // Compared with `nextAttemptAt` and stored as `claimedAt`: formatted once.
        let nowValue = now.databaseValue
        let next = try db.cachedStatement(sql: Self.nextPendingSQL)
        let claim = try db.cachedStatement(sql: """
            UPDATE outbox SET state = 'sending', claimedAt = ?, claimedBy = ?, attempts = attempts + 1 WHERE id = ?
            """)
        while claimed.count < limit {
            let asked = limit - claimed.count
            var candidates: [PendingPush] = []
            try next.forEachRow({ $0.add(after); $0.add(nowValue); $0.add(asked) }) {
                candidates.append(try PendingPush($0))
            }
            guard let last = candidates.last else { break }
            after = last.id
            for row in candidates {
                if QueuedPushRules.mayHaveNewerPush(supersedable: row.message.supersedable, attempts: row.attempts),
                   try Self.hasNewerPush(to: row.message.target, than: row.id, upTo: row.newerQueued, db) {
                    try Self.supersede(row.id, db)
                    continue
                }
                let step = try OutboxRules.claimStep(expiration: row.message.expiration, at: nowSeconds) {
                    try Self.currentToken(of: row.message.target, isEnd: row.message.isEnd, activity: row.activity, db)
                }
                switch step {
                case .drop(let reason, let finishesLeaving):
                    try Self.drop(row.id, because: reason, db)
                    if finishesLeaving { try Self.finishLeaving(row.message, db) }
                case .send(let destination):
                    try claim.run { $0.add(nowValue); $0.add(claimant); $0.add(row.id) }
                    claimed.append(ClaimedPush(id: OutboxID(row.id), adventure: row.adventure, tick: row.tick,
                                               message: row.message, destination: destination, attempts: row.attempts + 1,
                                               queuedAt: row.queuedAt))
                }
            }
            // Fewer than asked: no other push is due now.
            if candidates.count < asked { break }
        }
        return claimed
    }

    /// The next pending pushes by id, through the index of pending rows only, with
    /// the columns a claim needs (`PendingPush`). A push to a Live Activity, nearly
    /// every push, comes with its activity's status and valid token (at most one,
    /// `activityToken_oneValid`): a statement fewer a push than looking each up.
    /// Nothing a claim writes changes them, so they are what a lookup would read.
    static let nextPendingSQL = """
        SELECT o.id, m.adventure, m.tick, o.attempts, m.targetKind, m.targetID, m.pushType, m.topic, m.priority, m.expiration,
               m.payload, m.reason, m.hasAlert, m.isEnd, o.supersedable, m.createdAt, o.newerQueued, a.status, t.token
        FROM outbox o INDEXED BY outbox_pending JOIN outboxMessage m ON m.id = o.id
        LEFT JOIN liveActivity a ON m.targetKind = 'liveActivity' AND a.id = m.targetID
        LEFT JOIN activityToken t ON t.activity = a.id AND t.invalidatedAt IS NULL
        WHERE o.state = 'pending' AND o.id > ? AND o.nextAttemptAt <= ? ORDER BY o.id LIMIT ?
        """

    /// A pending push as a claim reads it: decoded by position, in place, without
    /// the bookkeeping dates a claim does not look at.
    private struct PendingPush {
        var id: Int64
        var adventure: AdventureID?
        var tick: Int?
        var attempts: Int
        var message: OutboxMessage
        var queuedAt: Date
        var newerQueued: Int64?
        /// The status and valid token of the push's Live Activity; nils for other targets.
        var activity: (status: String?, token: String?)

        init(_ row: StatementRow) throws {
            id = row.int64(0)
            adventure = row.optionalString(1).map(AdventureID.init)
            tick = row.optionalInt(2)
            attempts = row.int(3)
            let known = try StoredValues.priority(row.int(8), ofOutboxRow: id)
            message = OutboxMessage(target: try PushTarget(kind: row.string(4), id: row.string(5)),
                                    pushType: try OutboxRow.pushType(row.string(6)), topic: Topic(rawValue: row.string(7)),
                                    priority: known, expiration: row.int(9), payload: try StoredPayload.payload(fromStored: row.data(10)),
                                    reason: row.string(11),
                                    hasAlert: row.bool(12), isEnd: row.bool(13), supersedable: row.bool(14))
            guard let queuedAt = row.date(15) else { throw StoreError.corrupt("the time outbox row \(id) was queued") }
            self.queuedAt = queuedAt
            newerQueued = row.optionalInt64(16)
            activity = (status: row.optionalString(17), token: row.optionalString(18))
        }
    }

    /// Whether a push to `target` queued after outbox row `id` is waiting, being
    /// sent or sent. One queued while `id` waited superseded it then; so any such
    /// push was queued while `id` was out, and is no newer than `newest`, the last
    /// one queued then (`enqueue`): the rows between are all there is to read.
    static func hasNewerPush(to target: PushTarget, than id: Int64, upTo newest: Int64?, _ db: Database) throws -> Bool {
        guard let newest else { return false }
        return try Bool.fetchOne(db.cachedStatement(sql: hasNewerPushSQL),
                                 arguments: [id, newest, target.kind.rawValue, target.id]) != nil
    }

    static let hasNewerPushSQL = """
        SELECT 1 FROM outboxMessage m JOIN outbox o ON o.id = m.id
        WHERE m.id > ? AND m.id <= ? AND m.targetKind = ? AND m.targetID = ? AND o.state IN ('pending', 'sending', 'sent') LIMIT 1
        """

    /// Pushes left `sending` by a process that stopped before recording the answer
    /// go back to `pending`. One process writes a SQLite file, so every claim
    /// not made by this store was made by one that stopped. Delivery is at least
    /// once: such a push may reach the phone twice, which its timestamp makes
    /// harmless. Returns how many.
    @discardableResult
    public func recoverInterruptedSends() async throws -> Int {
        try await write { [claimant] db in
            try db.execute(sql: Self.recoverSQL, arguments: [QueuedPushRules.interruptedReason, claimant])
            return db.changesCount
        }
    }

    static let recoverSQL = """
        UPDATE outbox INDEXED BY outbox_sending SET state = 'pending', outcome = ?, claimedBy = NULL
        WHERE state = 'sending' AND claimedBy IS NOT ?
        """

    /// Pushes not yet settled (pending or being sent): what a drain waits for.
    public func pendingOutboxCount() async throws -> Int {
        try await read { db in try Int.fetchOne(db, sql: Self.unsettledCountSQL) ?? 0 }
    }

    static let unsettledCountSQL = """
        SELECT (SELECT COUNT(*) FROM outbox INDEXED BY outbox_pending WHERE state = 'pending')
             + (SELECT COUNT(*) FROM outbox INDEXED BY outbox_sending WHERE state = 'sending')
        """

    /// When the earliest pending push is due, so the dispatcher can sleep until then.
    public func nextOutboxAttemptAt() async throws -> Date? {
        try await read { db in
            try Date.fetchOne(db, sql: "SELECT MIN(nextAttemptAt) FROM outbox WHERE state = 'pending'")
        }
    }
}
