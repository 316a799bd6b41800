import Foundation
import PostgresNIO
import PushPolicy
import Store
import Vocabulary

extension PostgresStore {
    /// Claims are marked with this node's code (v26); a node whose heartbeat
    /// lapsed has stopped (the heartbeat is renewed every third of `lease`), so its
    /// claims go back: a progress row's to `pending`, and each push a claim in
    /// commit order still holds (v27) to a progress row of its own, pending,
    /// due from when it was queued. A live node's claims are never taken,
    /// however old.
    public func recoverInterruptedSends() async throws -> Int {
        try await transaction { [self] connection in
            let rows = try await connection.query("""
                UPDATE outbox SET state = 'pending', outcome = \(QueuedPushRules.interruptedReason), claimed_by = NULL
                WHERE state = 'sending' AND NOT \(unescaped: Self.claimHolderIsAlive("outbox"))
                RETURNING id
                """, logger: logger).decodeAll(Int64.self).count
            let fromClaims = try await connection.query("""
                WITH lapsed AS (
                    DELETE FROM outbox_claim WHERE NOT \(unescaped: Self.claimHolderIsAlive("outbox_claim")) RETURNING unanswered
                )
                INSERT INTO outbox (id, next_attempt_at, outcome, state, attempts)
                SELECT u.id, m.created_at, \(QueuedPushRules.interruptedReason), 'pending', 1
                FROM lapsed CROSS JOIN LATERAL UNNEST(lapsed.unanswered) AS u(id) JOIN outbox_message m ON m.id = u.id
                ORDER BY u.id
                RETURNING id
                """, logger: logger).decodeAll(Int64.self).count
            return rows + fromClaims
        }
    }

    /// The node named by `table.claimed_by` is alive.
    private static func claimHolderIsAlive(_ table: String) -> String {
        "EXISTS (SELECT 1 FROM node WHERE node.code = \(table).claimed_by AND node.alive_until > now())"
    }

    /// The progress rows, the pushes claims in commit order hold, and the pushes
    /// waiting for their first claim.
    public func pendingOutboxCount() async throws -> Int {
        try await query("""
            SELECT (SELECT COUNT(*) FROM outbox) + (SELECT COALESCE(SUM(cardinality(unanswered)), 0) FROM outbox_claim)
                 + (SELECT COUNT(*) FROM outbox_message m WHERE \(unescaped: Self.waitingForItsFirstClaim))
            """, logger: logger).decodeOne(Int.self)
    }

    /// A push waiting for its first claim is due from when it was queued; the
    /// first a claim could take now says when (or that the claim has the cursor
    /// to move). One held back by a transaction still running is not due yet:
    /// the dispatcher looks again after its idle wait, not at once.
    public func nextOutboxAttemptAt() async throws -> Date? {
        try await query("""
            WITH \(unescaped: Self.commitOrderBarrier)
            SELECT LEAST((SELECT MIN(next_attempt_at) FROM outbox WHERE state = 'pending'),
                         (SELECT m.created_at FROM outbox_message m
                          WHERE \(unescaped: Self.pastTheCursor) AND m.written_by < (SELECT xid FROM barrier)
                          ORDER BY m.written_by, m.id LIMIT 1))
            """, logger: logger).decodeFirst(Date?.self) ?? nil
    }

    // MARK: - Claiming

    /// Of the pending outbox rows `ids` (supersedable ones), those with a newer push
    /// to their target waiting, being sent or sent become `superseded`: their ids.
    /// A newer push that `outbox_end` does not name is unfinished or sent (v26).
    func supersedeWhereNewer(_ ids: [Int64], _ connection: PostgresConnection) async throws -> Set<Int64> {
        guard !ids.isEmpty else { return [] }
        return Set(try await connection.query("""
            WITH superseded AS (
                DELETE FROM outbox USING outbox_message mine
                WHERE outbox.id = ANY(\(ids)) AND mine.id = outbox.id AND outbox.state = 'pending' AND EXISTS (
                    SELECT 1 FROM outbox_message m LEFT JOIN outbox_end e ON e.id = m.id
                    WHERE m.target_kind = mine.target_kind AND m.target_id = mine.target_id
                    AND m.id > mine.id AND (e.id IS NULL OR e.state = 'sent'))
                RETURNING outbox.id, outbox.attempts
            ), ended AS (
                INSERT INTO outbox_end (id, attempts, state, outcome)
                SELECT id, attempts, 'superseded', \(QueuedPushRules.supersededReason) FROM superseded
            )
            SELECT id FROM superseded
            """, logger: logger).decodeAll(Int64.self))
    }

    /// Takes up to `limit` due pushes, with the token each target has now, and
    /// marks them `sending` by this node: first those kept in progress rows (to
    /// be tried again, given back, queued before v27), then those waiting for
    /// their first claim, in the order their transactions committed
    /// (`claimInCommitOrder`). Each push is claimed by one dispatcher. On the
    /// way, as `OutboxStore` says, pushes with a newer one to their target are
    /// superseded and those that can go nowhere are dropped.
    func claim(limit: Int, now: Date, _ connection: PostgresConnection) async throws -> [ClaimedPush] {
        guard limit > 0 else { return [] }
        var claimed = try await claimProgressRows(limit: limit, now: now, connection)
        if claimed.count < limit {
            claimed += try await claimInCommitOrder(limit: limit - claimed.count, now: now, connection)
        }
        return claimed
    }

    /// The pushes kept in progress rows. `FOR UPDATE SKIP LOCKED`: rows another
    /// dispatcher is claiming at this moment are passed over, not waited for. A
    /// handful of statements per batch, however many rows; the search for a
    /// newer push to a target, only for the pushes that have been out
    /// (`QueuedPushRules.mayHaveNewerPush`).
    ///
    /// Each pending push's message is looked up by its key (`OFFSET 0` keeps the
    /// planner from joining them otherwise). The planner cannot know that the
    /// pending pushes are the newest, and in some runs merged the messages' whole
    /// key, oldest first, with them: some 35,000 entries a claim at 800
    /// adventures, ten times the claim's cost.
    private func claimProgressRows(limit: Int, now: Date, _ connection: PostgresConnection) async throws -> [ClaimedPush] {
        var claimed: [ClaimedPush] = []
        var after: Int64 = 0
        while claimed.count < limit {
            let asked = limit - claimed.count
            let candidates = try await entries(try await connection.query("""
                SELECT \(unescaped: Self.outboxColumns) FROM outbox o
                JOIN LATERAL (SELECT * FROM outbox_message WHERE outbox_message.id = o.id OFFSET 0) m ON true
                WHERE o.state = 'pending' AND o.id > \(after) AND o.next_attempt_at <= \(now)
                ORDER BY o.id LIMIT \(asked) FOR UPDATE OF o SKIP LOCKED
                """, logger: logger).decodeAll(OutboxColumns.self), connection)
            guard let last = candidates.last else { break }
            after = last.id.rawValue

            let superseded = try await supersedeWhereNewer(candidates.filter {
                QueuedPushRules.mayHaveNewerPush(supersedable: $0.message.supersedable, attempts: $0.attempts)
            }.map(\.id.rawValue), connection)
            let decided = try await sendOrDrop(candidates.filter { !superseded.contains($0.id.rawValue) }, at: now, connection)
            claimed += decided.claimed
            if !decided.dropped.isEmpty {
                try await connection.query("""
                    WITH dropped AS (
                        DELETE FROM outbox
                        USING UNNEST(\(decided.dropped.map(\.id))::int8[], \(decided.dropped.map(\.reason))::text[]) AS t(id, reason)
                        WHERE outbox.id = t.id RETURNING outbox.id, outbox.attempts, t.reason
                    )
                    INSERT INTO outbox_end (id, attempts, state, outcome) SELECT id, attempts, 'dropped', reason FROM dropped
                    """, logger: logger)
            }
            // Fewer than asked: none other is due now but those other dispatchers hold.
            if candidates.count < asked { break }
        }
        if !claimed.isEmpty {
            try await connection.query("""
                UPDATE outbox SET state = 'sending', claimed_at = \(now), claimed_by = (SELECT code FROM node WHERE id = \(node)),
                    attempts = attempts + 1
                WHERE id = ANY(\(claimed.map(\.id.rawValue)))
                """, logger: logger)
        }
        return claimed
    }

    /// What a claim makes of its candidates (`OutboxRules.claimStep`): those to
    /// send, and those dropped, with why; a leave push that goes nowhere
    /// finishes its member's leaving here. The caller records the drops.
    func sendOrDrop(_ candidates: [OutboxEntry], at now: Date,
                    _ connection: PostgresConnection) async throws -> (claimed: [ClaimedPush], dropped: [(id: Int64, reason: String)]) {
        let nowSeconds = Int(now.timeIntervalSince1970)
        let tokens = try await currentTokens(of: candidates.map(\.message), connection)
        var claimed: [ClaimedPush] = []
        var dropped: [(id: Int64, reason: String)] = []
        var leaving: [String] = []
        for entry in candidates {
            switch OutboxRules.claimStep(expiration: entry.message.expiration, at: nowSeconds, lookup: { tokens(entry.message) }) {
            case .drop(let reason, let finishesLeaving):
                dropped.append((entry.id.rawValue, reason))
                if finishesLeaving, let member = Self.leavingMember(entry.message) { leaving.append(member) }
            case .send(let destination):
                claimed.append(ClaimedPush(id: entry.id, adventure: entry.adventure, tick: entry.tick, message: entry.message,
                                           destination: destination, attempts: entry.attempts + 1, queuedAt: entry.createdAt))
            }
        }
        try await finishLeaving(leaving, connection)
        return (claimed, dropped)
    }

    /// The token each push's target has now, read for all of them in at most four
    /// statements (one per kind of target); what a row means is `TokenLookup`'s.
    private func currentTokens(of messages: [OutboxMessage],
                               _ connection: PostgresConnection) async throws -> (OutboxMessage) -> TokenLookup {
        func ids(_ kind: PushTarget.Kind) -> [String] { messages.filter { $0.target.kind == kind }.map(\.target.id) }
        var activities: [String: (String, String?)] = [:]
        var devices: [String: String?] = [:]
        var members: [String: (String, String?)] = [:]
        if case let wanted = ids(.liveActivity), !wanted.isEmpty {
            for (id, status, token) in try await connection.query("""
                SELECT a.id, a.status, t.token FROM live_activity a
                LEFT JOIN activity_token t ON t.activity = a.id AND t.invalidated_at IS NULL WHERE a.id = ANY(\(wanted))
                """, logger: logger).decodeAll((String, String, String?).self) { activities[id] = (status, token) }
        }
        if case let wanted = ids(.pushToStart), !wanted.isEmpty {
            for (id, token) in try await connection.query("""
                SELECT id, CASE WHEN push_to_start_token_invalid_at IS NULL THEN push_to_start_token END
                FROM device WHERE id = ANY(\(wanted))
                """, logger: logger).decodeAll((String, String?).self) { devices[id] = token }
        }
        if case let wanted = ids(.pushToTalk), !wanted.isEmpty {
            for (id, status, token) in try await connection.query("""
                SELECT id, status, CASE WHEN token_invalid_at IS NULL THEN token END FROM channel_member WHERE id = ANY(\(wanted))
                """, logger: logger).decodeAll((String, String, String?).self) { members[id] = (status, token) }
        }
        var channels: [String: (String, String?)] = [:]
        if case let wanted = ids(.followerChannel), !wanted.isEmpty {
            for (id, state, apnsID) in try await connection.query("""
                SELECT id, state, apns_channel_id FROM follower_channel WHERE id = ANY(\(wanted))
                """, logger: logger).decodeAll((String, String, String?).self) { channels[id] = (state, apnsID) }
        }
        return { message in
            switch message.target {
            case .followerChannel(let id):
                let row = channels[id.rawValue]
                return .followerChannel(state: row?.0, apnsID: row?.1)
            case .liveActivity(let id):
                let row = activities[id.rawValue]
                return .liveActivity(status: row?.0, validToken: row?.1)
            case .pushToStart(let id):
                let row = devices[id.rawValue]
                return .pushToStart(deviceIsKnown: row != nil, validToken: row ?? nil)
            case .pushToTalk(let id):
                let row = members[id.rawValue]
                return .pushToTalk(status: row?.0, validToken: row?.1, isLeavePush: message.isEnd)
            }
        }
    }
}
