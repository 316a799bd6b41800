import Foundation
import PostgresNIO
import PushPolicy
import Store
import Vocabulary

extension PostgresStore {
    /// Claims are marked with this node; a node whose heartbeat lapsed has stopped
    /// (the heartbeat is renewed every third of `lease`), so its claims go back.
    /// A live node's claims are never taken, however old.
    public func recoverInterruptedSends() async throws -> Int {
        try await query("""
            UPDATE outbox SET state = 'pending', outcome = \(QueuedPushRules.interruptedReason), claimed_by = NULL
            WHERE state = 'sending' AND NOT EXISTS (
                SELECT 1 FROM node WHERE node.id = outbox.claimed_by AND node.alive_until > now())
            RETURNING id
            """, logger: logger).decodeAll(Int64.self).count
    }

    public func pendingOutboxCount() async throws -> Int {
        try await query("""
            SELECT (SELECT COUNT(*) FROM outbox WHERE state = 'pending') + (SELECT COUNT(*) FROM outbox WHERE state = 'sending')
            """, logger: logger).decodeOne(Int.self)
    }

    public func nextOutboxAttemptAt() async throws -> Date? {
        try await query("SELECT MIN(next_attempt_at) FROM outbox WHERE state = 'pending'", logger: logger)
            .decodeFirst(Date?.self) ?? nil
    }

    // MARK: - Claiming

    /// Of the pending outbox rows `ids` (supersedable ones), those with a newer push
    /// to their target waiting, being sent or sent become `superseded`: their ids.
    func supersedeWhereNewer(_ ids: [Int64], _ connection: PostgresConnection) async throws -> Set<Int64> {
        guard !ids.isEmpty else { return [] }
        return Set(try await connection.query("""
            UPDATE outbox SET state = 'superseded', outcome = \(QueuedPushRules.supersededReason)
            WHERE id = ANY(\(ids)) AND state = 'pending' AND EXISTS (
                SELECT 1 FROM outbox_message m JOIN outbox newer ON newer.id = m.id
                WHERE m.target_kind = outbox.target_kind AND m.target_id = outbox.target_id
                AND m.id > outbox.id AND newer.state IN ('pending', 'sending', 'sent'))
            RETURNING id
            """, logger: logger).decodeAll(Int64.self))
    }

    /// Takes up to `limit` due pushes in the order they were queued, with the token
    /// each target has now, and marks them `sending` by this node. `FOR UPDATE SKIP
    /// LOCKED`: rows another dispatcher is claiming at this moment are passed over,
    /// not waited for, so each push is claimed by one dispatcher. On the way, as
    /// `OutboxStore` says, pushes with a newer one to their target are superseded
    /// and those that can go nowhere are dropped. Usually two statements a batch:
    /// the read brings each Live Activity push's status and valid token, and says
    /// which pushes have a newer one to their target, so that only those take the
    /// statement that supersedes and only other targets a read of their tokens.
    func claim(limit: Int, now: Date, _ connection: PostgresConnection) async throws -> [ClaimedPush] {
        guard limit > 0 else { return [] }
        var claimed: [ClaimedPush] = []
        var after: Int64 = 0
        let nowSeconds = Int(now.timeIntervalSince1970)
        while claimed.count < limit {
            let asked = limit - claimed.count
            let candidates: [Candidate] = try await connection.query("""
                SELECT \(unescaped: Self.outboxColumns), a.status, t.token,
                       o.supersedable AND EXISTS (
                           SELECT 1 FROM outbox_message n JOIN outbox newer ON newer.id = n.id
                           WHERE n.target_kind = o.target_kind AND n.target_id = o.target_id
                           AND n.id > o.id AND newer.state IN ('pending', 'sending', 'sent'))
                FROM \(unescaped: Self.outboxRows)
                LEFT JOIN live_activity a ON o.target_kind = 'liveActivity' AND a.id = o.target_id
                LEFT JOIN activity_token t ON t.activity = a.id AND t.invalidated_at IS NULL
                WHERE o.state = 'pending' AND o.id > \(after) AND o.next_attempt_at <= \(now)
                ORDER BY o.id LIMIT \(asked) FOR UPDATE OF o SKIP LOCKED
                """, logger: logger).decodeAll(ClaimColumns.self).map(Self.candidate)
            guard let last = candidates.last else { break }
            after = last.entry.id.rawValue

            let superseded = try await supersedeWhereNewer(candidates.filter(\.hasNewer).map(\.entry.id.rawValue), connection)
            let live = candidates.filter { !superseded.contains($0.entry.id.rawValue) }
            let tokens = try await currentTokens(of: live, connection)

            var dropped: [(id: Int64, reason: String)] = []
            var leaving: [String] = []
            for candidate in live {
                let entry = candidate.entry
                switch OutboxRules.claimStep(expiration: entry.message.expiration, at: nowSeconds, lookup: { tokens(candidate) }) {
                case .drop(let reason, let finishesLeaving):
                    dropped.append((entry.id.rawValue, reason))
                    if finishesLeaving, let member = Self.leavingMember(entry.message) { leaving.append(member) }
                case .send(let destination):
                    claimed.append(ClaimedPush(id: entry.id, adventure: entry.adventure, tick: entry.tick, message: entry.message,
                                               destination: destination, attempts: entry.attempts + 1, queuedAt: entry.createdAt))
                }
            }
            if !dropped.isEmpty {
                try await connection.query("""
                    UPDATE outbox SET state = 'dropped', outcome = t.reason
                    FROM UNNEST(\(dropped.map(\.id))::int8[], \(dropped.map(\.reason))::text[]) AS t(id, reason)
                    WHERE outbox.id = t.id
                    """, logger: logger)
            }
            try await finishLeaving(leaving, connection)
            // Fewer than asked: none other is due now but those other dispatchers hold.
            if candidates.count < asked { break }
        }
        if !claimed.isEmpty {
            try await connection.query("""
                UPDATE outbox SET state = 'sending', claimed_at = \(now), claimed_by = \(node), attempts = attempts + 1
                WHERE id = ANY(\(claimed.map(\.id.rawValue)))
                """, logger: logger)
        }
        return claimed
    }

    /// The outbox's columns, then the status and valid token of a Live Activity
    /// target (NULLs for other targets), then whether a newer push to its target
    /// waits, is being sent or was sent.
    private typealias ClaimColumns = (Int64, String?, String, String, String, String, Int, Int, Data, String, Bool, Bool, Bool,
                                      Int?, String, String?, Int, Date, String?, String?, Bool)

    /// A pending push as the claim reads it.
    private typealias Candidate = (entry: OutboxEntry, activity: (status: String?, token: String?), hasNewer: Bool)

    private static func candidate(_ row: ClaimColumns) throws -> Candidate {
        let entry = try entry((row.0, row.1, row.2, row.3, row.4, row.5, row.6, row.7, row.8, row.9, row.10, row.11, row.12,
                               row.13, row.14, row.15, row.16, row.17))
        return (entry, (row.18, row.19), row.20)
    }

    /// The token each push's target has now: a Live Activity's as the claim read
    /// it, the others' read for all of them in at most three statements (one per
    /// kind of target); what a row means is `TokenLookup`'s.
    private func currentTokens(of candidates: [Candidate],
                               _ connection: PostgresConnection) async throws -> (Candidate) -> TokenLookup {
        func ids(_ kind: PushTarget.Kind) -> [String] {
            candidates.map(\.entry.message.target).filter { $0.kind == kind }.map(\.id)
        }
        var devices: [String: String?] = [:]
        var members: [String: (String, String?)] = [:]
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
        return { candidate in
            let message = candidate.entry.message
            switch message.target {
            case .followerChannel(let id):
                let row = channels[id.rawValue]
                return .followerChannel(state: row?.0, apnsID: row?.1)
            case .liveActivity:
                return .liveActivity(status: candidate.activity.status, validToken: candidate.activity.token)
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
