import Foundation
import PostgresNIO
import PushPolicy
import Store
import Vocabulary

extension PostgresStore {
    public func recordAndClaim(_ results: [PushResult], limit: Int,
                               now: Date) async throws -> (refusals: [StoreError?], claimed: [ClaimedPush]) {
        try await transaction { [self] connection in
            (try await record(results, at: now, connection), try await claim(limit: limit, now: now, connection))
        }
    }

    public func record(_ results: [PushResult], at now: Date) async throws -> [StoreError?] {
        guard !results.isEmpty else { return [] }
        return try await transaction { [self] connection in try await record(results, at: now, connection) }
    }

    /// Records APNs' answers in a fixed number of statements (one more per token
    /// found invalid, one more when some are to be tried again). An answer is
    /// refused, leaving the others recorded, when its push is not `sending` by
    /// this node: answered already, never claimed, or claimed again after this
    /// node was taken for stopped.
    func record(_ results: [PushResult], at now: Date, _ connection: PostgresConnection) async throws -> [StoreError?] {
        guard !results.isEmpty else { return [] }
        // A push's first answer in the batch settles it; a second finds it answered.
        var first: [Int64: Int] = [:]
        for (index, result) in results.enumerated() where first[result.push.id.rawValue] == nil {
            first[result.push.id.rawValue] = index
        }
        let answers = results.enumerated().filter { first[$0.element.push.id.rawValue] == $0.offset }.map(\.element)
        let settlements = answers.map { OutboxRules.settlement(of: $0.outcome) }
        // First the answers to pushes this node's claims in commit order hold
        // (v27), then, in one statement, the rest, only while `sending` by this
        // node (`answerRefusal`'s nil case): a recovery by another node waits for
        // it, then finds them settled. No row is read first, as on SQLite (a read
        // `FOR UPDATE` logged a lock per push); only those it did not settle are
        // read, to say why. A push to try again stays, pending; a finished one's
        // row goes (v26), its end kept in `outbox_end` unless it was sent, which
        // its push log entry says.
        let fromClaims = try await settleFromClaims(Array(zip(answers, settlements)), at: now, connection)
        var claims = Dictionary(uniqueKeysWithValues: fromClaims.map { ($0, 1) })
        let rest = zip(answers, settlements).filter { claims[$0.0.push.id.rawValue] == nil }
        if !rest.isEmpty {
            let settledRows = try await connection.query("""
                WITH t AS MATERIALIZED (
                    SELECT * FROM UNNEST(\(rest.map(\.0.push.id.rawValue))::int8[], \(rest.map(\.1.state.rawValue))::text[],
                                         \(rest.map { $0.1.outcome ?? "" })::text[],
                                         \(rest.map { $0.1.nextAttempt ?? now })::timestamptz[])
                         AS t(id, state, outcome, next_attempt_at)
                ), claimant AS MATERIALIZED (
                    SELECT code FROM node WHERE id = \(node)
                ), retried AS (
                    UPDATE outbox SET state = 'pending', outcome = NULLIF(t.outcome, ''), next_attempt_at = t.next_attempt_at
                    FROM t WHERE t.state = 'pending' AND outbox.id = t.id
                      AND outbox.state = 'sending' AND outbox.claimed_by = (SELECT code FROM claimant)
                    RETURNING outbox.id, outbox.attempts
                ), finished AS (
                    DELETE FROM outbox USING t WHERE t.state <> 'pending' AND outbox.id = t.id
                      AND outbox.state = 'sending' AND outbox.claimed_by = (SELECT code FROM claimant)
                    RETURNING outbox.id, outbox.attempts, t.state, t.outcome
                ), ended AS (
                    INSERT INTO outbox_end (id, attempts, state, outcome)
                    SELECT id, attempts, state, NULLIF(outcome, '') FROM finished WHERE state <> 'sent'
                )
                SELECT id, attempts FROM retried UNION ALL SELECT id, attempts FROM finished
                """, logger: logger).decodeAll((Int64, Int).self)
            for (id, attempts) in settledRows { claims[id] = attempts }
        }
        let settledIDs = Set(claims.keys)
        let unsettled = answers.map(\.push.id.rawValue).filter { !settledIDs.contains($0) }
        // A push with no progress row is held by a claim (v27), waits for its
        // first one, or has finished: `outbox_end` says how, or it was sent and
        // answered.
        let rows = unsettled.isEmpty ? [:] : Dictionary(uniqueKeysWithValues: try await connection.query("""
            SELECT m.id, COALESCE(o.state, CASE WHEN c.claimed_by IS NOT NULL THEN 'sending' END, e.state,
                                  CASE WHEN \(unescaped: Self.pastTheCursor) THEN 'pending' END, 'answered'),
                   (SELECT n.id FROM node n WHERE n.code = COALESCE(o.claimed_by, c.claimed_by))
            FROM outbox_message m LEFT JOIN outbox o ON o.id = m.id LEFT JOIN outbox_end e ON e.id = m.id
            LEFT JOIN LATERAL (SELECT claimed_by FROM outbox_claim WHERE m.id = ANY(unanswered) LIMIT 1) c ON true
            WHERE m.id = ANY(\(unsettled))
            """, logger: logger).decodeAll((Int64, String, String?).self).map { ($0.0, ($0.1, $0.2)) })
        let refusals: [StoreError?] = results.enumerated().map { index, result in
            let id = result.push.id
            if settledIDs.contains(id.rawValue) {
                return first[id.rawValue] == index ? nil
                    : OutboxRules.answerRefusal(id, state: "answered", holder: nil, claimant: node)
            }
            let row = rows[id.rawValue]
            return OutboxRules.unsettledRefusal(id, state: row?.0, holder: row?.1, claimant: node)
        }
        let recorded = zip(answers, settlements).filter { settledIDs.contains($0.0.push.id.rawValue) }
        guard !recorded.isEmpty else { return refusals }

        // A push to try again whose target got a newer push while it was out is
        // superseded at once: it is not sent again, nor shown waiting meanwhile.
        let retried = recorded.filter { $0.1.state == .pending && $0.0.push.message.supersedable }.map(\.0.push.id.rawValue)
        _ = try await supersedeWhereNewer(retried, connection)

        let logged = recorded.compactMap { result, settlement in settlement.log.map { (result.push, $0) } }
        if !logged.isEmpty {
            let pushes = logged.map(\.0), lines = logged.map(\.1)
            let apnsIDs = lines.map { Self.storedAPNsID($0.apnsID) }
            // The adventure's code (v25) is its message's, read by the message's
            // key; the push's claims (v26) what its settling read.
            try await connection.query("""
                INSERT INTO push_log (outbox, adventure_code, token, status, reason, apns_id, apns_id_not_uuid, attempts, claims, sent_at)
                SELECT id, (SELECT m.adventure_code FROM outbox_message m WHERE m.id = t.id), token, NULLIF(status, -1),
                       NULLIF(reason, ''), NULLIF(apns_id, \(Self.noUUID)), NULLIF(apns_id_not_uuid, ''), attempts, claims, \(now)
                FROM UNNEST(\(pushes.map(\.id.rawValue))::int8[], \(try pushes.map { try Self.storedDestination($0.destination) })::bytea[],
                            \(lines.map { $0.status ?? -1 })::int8[], \(lines.map { $0.reason ?? "" })::text[],
                            \(apnsIDs.map(\.uuid))::uuid[], \(apnsIDs.map(\.text))::text[], \(lines.map(\.attempts))::int8[],
                            \(pushes.map { claims[$0.id.rawValue] ?? 0 })::int4[])
                     WITH ORDINALITY AS t(id, token, status, reason, apns_id, apns_id_not_uuid, attempts, claims, position)
                ORDER BY position
                """, logger: logger)
        }
        for (result, _) in recorded {
            switch (result.outcome, result.push.destination, result.push.message.target) {
            case (.tokenInvalid(_, let reason, let since, _, _), .device(let token), _):
                try await invalidate(token, reason: reason, since: since, at: now, connection)
            case (.channelGone(_, let reason, _, _), .channel(let apnsID), .followerChannel(let channel)):
                try await channelGone(channel, apnsID: apnsID, reason: reason, at: now, connection)
            default:
                break
            }
        }
        // The member told to leave has left once that push is done with, whatever APNs said.
        let done = recorded.filter { $0.1.state != .pending }.map(\.0.push.message)
        try await finishLeaving(done.compactMap(Self.leavingMember), connection)
        return refusals
    }

    /// Settles the answers to pushes this node's claims in commit order hold
    /// (v27), in one statement: a push to try again gets a progress row,
    /// pending, a failed one its end; each leaves its claim, and a claim with
    /// nothing left goes. The claims are read `FOR UPDATE`: a recovery that took
    /// them (this node taken for stopped) is waited for, and then they are gone
    /// and the answers refused. The ids settled.
    private func settleFromClaims(_ answers: [(PushResult, OutboxRules.Settlement)], at now: Date,
                                  _ connection: PostgresConnection) async throws -> [Int64] {
        guard !answers.isEmpty else { return [] }
        return try await connection.query("""
            WITH held AS MATERIALIZED (
                SELECT id, unanswered FROM outbox_claim
                WHERE claimed_by = (SELECT code FROM node WHERE id = \(node)) AND unanswered && \(answers.map(\.0.push.id.rawValue))
                FOR UPDATE
            ), t AS MATERIALIZED (
                SELECT * FROM UNNEST(\(answers.map(\.0.push.id.rawValue))::int8[], \(answers.map(\.1.state.rawValue))::text[],
                                     \(answers.map { $0.1.outcome ?? "" })::text[],
                                     \(answers.map { $0.1.nextAttempt ?? now })::timestamptz[])
                     AS t(id, state, outcome, next_attempt_at)
                WHERE t.id IN (SELECT UNNEST(unanswered) FROM held)
            ), answered AS MATERIALIZED (
                SELECT COALESCE(array_agg(id), '{}') AS ids FROM t
            ), retried AS (
                INSERT INTO outbox (id, next_attempt_at, outcome, state, attempts)
                SELECT id, next_attempt_at, NULLIF(outcome, ''), 'pending', 1 FROM t WHERE state = 'pending' ORDER BY id
            ), ended AS (
                INSERT INTO outbox_end (id, attempts, state, outcome)
                SELECT id, 1, state, NULLIF(outcome, '') FROM t WHERE state NOT IN ('pending', 'sent') ORDER BY id
            ), emptied AS (
                DELETE FROM outbox_claim c USING held h
                WHERE c.id = h.id AND h.unanswered <@ (SELECT ids FROM answered)
            ), kept AS (
                UPDATE outbox_claim c
                SET unanswered = ARRAY(SELECT x FROM UNNEST(h.unanswered) AS x WHERE x NOT IN (SELECT id FROM t))
                FROM held h WHERE c.id = h.id AND NOT h.unanswered <@ (SELECT ids FROM answered)
            )
            SELECT id FROM t
            """, logger: logger).decodeAll(Int64.self)
    }

    /// The token is no longer valid wherever it is the valid one (registered
    /// before APNs' timestamp, if it gave one), and what was waiting for those
    /// targets goes nowhere.
    private func invalidate(_ token: PushToken, reason: String, since: Date?, at now: Date,
                            _ connection: PostgresConnection) async throws {
        let activities = try await connection.query("""
            UPDATE activity_token SET invalidated_at = \(now), invalid_reason = \(reason)
            WHERE token = \(token.hex) AND invalidated_at IS NULL AND (\(since)::timestamptz IS NULL OR registered_at <= \(since))
            RETURNING activity
            """, logger: logger).decodeAll(String.self)
        let devices = try await connection.query("""
            UPDATE device SET push_to_start_token_invalid_at = \(now), push_to_start_token_invalid_reason = \(reason)
            WHERE push_to_start_token = \(token.hex) AND push_to_start_token_invalid_at IS NULL
              AND (\(since)::timestamptz IS NULL OR push_to_start_token_registered_at <= \(since))
            RETURNING id
            """, logger: logger).decodeAll(String.self)
        let members = try await connection.query("""
            UPDATE channel_member SET token_invalid_at = \(now), token_invalid_reason = \(reason),
                status = CASE status WHEN 'leaving' THEN 'left' ELSE status END
            WHERE token = \(token.hex) AND token_invalid_at IS NULL
              AND (\(since)::timestamptz IS NULL OR token_registered_at <= \(since))
            RETURNING id
            """, logger: logger).decodeAll(String.self)
        let targets = activities.map { PushTarget.liveActivity(ActivityID($0)) } + devices.map { PushTarget.pushToStart(DeviceID($0)) }
            + members.map { PushTarget.pushToTalk(ChannelMemberID($0)) }
        try await endPending(to: targets, supersedableOnly: false, as: .dropped, "its token was found invalid: \(reason)", connection)
    }
}
