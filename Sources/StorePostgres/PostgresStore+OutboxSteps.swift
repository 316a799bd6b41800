import Foundation
import PostgresNIO
import PushPolicy
import Store
import Vocabulary

// The steps that queue pushes, shared by several jobs, each run inside the
// caller's transaction.
extension PostgresStore {
    /// Inserts outbox rows, in order, in two statements however many: first the
    /// pushes kept in progress rows, waiting for their targets, that the policy
    /// marked supersedable are superseded, then the new rows go in (one
    /// superseded at once when a later one in the same call is for its target).
    /// Those waiting for their first claim are superseded by their claim
    /// (`waitingForItsFirstClaim`). A leave-channel push also
    /// marks the member as leaving: their token is kept until that push is done with.
    /// The pushes' ids, in order; `inTickLog` says the caller lists them in their
    /// ticks' rows of the tick log (v18), which is how an adventure's are found.
    @discardableResult
    func enqueue(_ queued: [QueuedMessage], inTickLog: Bool = false, at now: Date,
                 _ connection: PostgresConnection) async throws -> [Int64] {
        guard !queued.isEmpty else { return [] }
        let messages = queued.map(\.message)
        // What lets a claim look for newer pushes only behind those that have been
        // out (`QueuedPushRules.mayHaveNewerPush`): a tick's transaction is the
        // only one that queues a push a newer one may supersede.
        guard inTickLog || !messages.contains(where: \.supersedable) else {
            throw StoreError.invalid("a push that a newer one may supersede is queued only by its adventure's tick")
        }
        try await endPending(to: messages.map(\.target), supersedableOnly: true, as: .superseded, QueuedPushRules.supersededReason,
                             connection)
        var lastIndex: [PushTarget: Int] = [:]
        for (index, message) in messages.enumerated() { lastIndex[message.target] = index }
        let superseded = messages.indices.map { $0 != lastIndex[messages[$0].target] && messages[$0].supersedable }
        let topics = try await topicCodes(of: messages.map(\.topic), connection)
        // Arrays hold no NULL here: '' stands for "no adventure", -1 for "no tick"
        // and for "the adventure's code is not known here" (looked up by its id).
        // A push is its message (v11), with no progress row until it has some to
        // keep: it waits for its first claim in the order of commits (v27). One
        // superseded at once has its end (v26).
        let ids = try await connection.query("""
            WITH t AS MATERIALIZED (
                SELECT nextval('outbox_id_seq') AS id, u.*
                FROM UNNEST(\(queued.map { $0.adventureCode == nil ? $0.adventure?.rawValue ?? "" : "" })::text[],
                            \(queued.map { $0.adventureCode ?? -1 })::int8[], \(messages.map(\.target.kind.rawValue))::text[],
                            \(messages.map(\.target.id))::text[], \(messages.map(\.pushType.rawValue))::text[],
                            \(topics)::int4[], \(messages.map(\.priority.rawValue))::int8[],
                            \(messages.map(\.expiration))::int8[], \(messages.map { ByteBuffer(bytes: StoredPayload.stored($0.payload)) })::bytea[],
                            \(messages.map(\.reason))::text[], \(messages.map(\.hasAlert))::bool[], \(messages.map(\.isEnd))::bool[],
                            \(messages.map(\.supersedable))::bool[], \(queued.map { $0.tick ?? -1 })::int8[], \(superseded)::bool[])
                     WITH ORDINALITY AS u(adventure, adventure_code, target_kind, target_id, push_type, topic_code, priority, expiration,
                                          payload, reason, has_alert, is_end, supersedable, tick, superseded, position)
                ORDER BY position
            ), superseded AS (
                INSERT INTO outbox_end (id, attempts, state, outcome)
                SELECT id, 0, 'superseded', \(QueuedPushRules.supersededReason) FROM t WHERE superseded ORDER BY id
            )
            INSERT INTO outbox_message (id, adventure_code, target_kind, target_id, push_type, topic_code, priority, expiration, payload,
                                        reason, has_alert, is_end, supersedable, tick, created_at, in_tick_log)
            SELECT id, CASE WHEN adventure_code >= 0 THEN adventure_code
                            ELSE (SELECT a.code FROM adventure a WHERE a.id = NULLIF(t.adventure, '')) END,
                   target_kind::push_target_kind, target_id, push_type::apns_push_type, topic_code,
                   priority, expiration, payload, reason,
                   has_alert, is_end, supersedable, NULLIF(tick, -1), \(now), \(inTickLog)
            FROM t ORDER BY id
            RETURNING id
            """, logger: logger).decodeAll(Int64.self).sorted() // drawn in the rows' order
        let leaving = messages.compactMap(Self.leavingMember)
        if !leaving.isEmpty {
            try await connection.query("""
                UPDATE channel_member SET status = 'leaving', left_at = \(now) WHERE id = ANY(\(leaving)) AND status = 'joined'
                """, logger: logger)
        }
        return ids
    }

    /// The pending pushes to `targets` (with `supersedableOnly`, those the
    /// policy let a newer push replace, kept in progress rows; without it, those
    /// waiting for their first claim too) end as `state`, with `outcome`. They are
    /// found through their messages' index by target, from the oldest push not
    /// finished on (v22; the oldest in `outbox` since v26): the pushes to a
    /// target since then are few, where its index entries go back to its first push.
    func endPending(to targets: [PushTarget], supersedableOnly: Bool, as state: OutboxState, _ outcome: String,
                    _ connection: PostgresConnection) async throws {
        guard !targets.isEmpty else { return }
        try await connection.query("""
            WITH ended AS (
                DELETE FROM outbox
                USING outbox_message m, UNNEST(\(targets.map(\.kind.rawValue))::text[], \(targets.map(\.id))::text[]) AS t(kind, id)
                WHERE m.target_kind = t.kind::push_target_kind AND m.target_id = t.id AND m.id >= (SELECT MIN(id) FROM outbox)
                  AND outbox.id = m.id AND outbox.state = 'pending' AND (m.supersedable OR NOT \(supersedableOnly))
                RETURNING outbox.id, outbox.attempts
            )
            INSERT INTO outbox_end (id, attempts, state, outcome) SELECT id, attempts, \(state.rawValue), \(outcome) FROM ended
            """, logger: logger)
        if !supersedableOnly { try await endWaiting(to: targets, as: state, outcome, connection) }
    }

    /// The channel member a leave push is for, as the store keeps it; nil for every other push.
    static func leavingMember(_ message: OutboxMessage) -> String? { message.leavingMember?.rawValue }

    /// Once the leave push to channel members is done with (sent, refused or
    /// undeliverable), they have left and their ephemeral tokens are dropped.
    func finishLeaving(_ members: [String], _ connection: PostgresConnection) async throws {
        guard !members.isEmpty else { return }
        try await connection.query("""
            UPDATE channel_member SET status = 'left', token = NULL WHERE id = ANY(\(members)) AND status = 'leaving'
            """, logger: logger)
    }
}

/// A push to queue, with the adventure and tick it belongs to, if any. A tick
/// knows its adventure's code (v25) from its fenced update; other callers leave
/// it to be looked up.
struct QueuedMessage {
    var message: OutboxMessage
    var adventure: AdventureID?
    var adventureCode: Int64?
    var tick: Int?

    init(message: OutboxMessage, adventure: AdventureID? = nil, adventureCode: Int64? = nil, tick: Int? = nil) {
        self.message = message
        self.adventure = adventure
        self.adventureCode = adventureCode
        self.tick = tick
    }
}
