import Foundation
import PostgresNIO
import PushPolicy
import Store
import Vocabulary

// The pushes queued since v27 wait for their first claim with no progress row:
// a claim takes the next ones in the order their transactions committed, from
// one cursor, and names them in one row of its own (`outbox_claim`).
extension PostgresStore {
    /// The message `m` is past the cursor: queued since v27, and no claim has
    /// taken it. (The cursor's two columns as two values, so that the index in
    /// commit order is read from the cursor on.)
    static let pastTheCursor = """
        m.written_by IS NOT NULL
        AND (m.written_by, m.id) > ((SELECT written_by FROM outbox_cursor), (SELECT id FROM outbox_cursor))
        """

    /// A push to `m`'s target was queued after it. The pushes to a target that a
    /// newer one may supersede are queued only by its adventure's ticks, one
    /// after another (`enqueue`), so a newer one has the larger id.
    static let newerPushQueued = """
        EXISTS (SELECT 1 FROM outbox_message n WHERE n.target_kind = m.target_kind AND n.target_id = m.target_id AND n.id > m.id)
        """

    /// `m` waits for its first claim: past the cursor, not ended, and not one
    /// its claim will supersede. Queuing a push does not end the older ones
    /// waiting so (it would race the claim that takes them); they read as
    /// superseded (`anyPushColumns`) and their claim records it.
    static let waitingForItsFirstClaim = """
        \(pastTheCursor) AND NOT EXISTS (SELECT 1 FROM outbox_end e WHERE e.id = m.id)
        AND NOT (m.supersedable AND \(newerPushQueued))
        """

    /// `barrier`: the oldest transaction running when the statement's snapshot
    /// was taken that may queue pushes here; the statement's own snapshot, so
    /// that every push from a transaction before it is seen or never will be.
    /// Transaction ids are the server's, so a transaction of another database
    /// on the same server would hold the reads back for as long as it runs:
    /// one is passed over where `pg_stat_activity` names its database (the
    /// store's role sees the other roles' transactions only with
    /// `pg_read_all_stats`, docs/operations.md). One it cannot place, or that
    /// has ended since the snapshot, holds this read back.
    static let commitOrderBarrier = "barrier AS MATERIALIZED (SELECT \(barrier(passingEnded: false)) AS xid)"

    /// The barrier as an expression (an `xid8`). With `passingEnded`, a
    /// transaction that has ended since the snapshot is passed over too: for a
    /// caller whose reads come in later statements, whose snapshots see what it
    /// committed (a claim; a busy server's short transactions of other databases
    /// end all the time between a snapshot and the read of `pg_stat_activity`).
    static func barrier(passingEnded: Bool) -> String {
        """
        (SELECT COALESCE(MIN(x), pg_snapshot_xmax(pg_current_snapshot()))
         FROM pg_snapshot_xip(pg_current_snapshot()) AS x
         WHERE \(passingEnded ? "pg_xact_status(x) = 'in progress' AND" : "")
               NOT EXISTS (SELECT 1 FROM pg_stat_activity a
                           WHERE a.backend_xid = xid(x)
                             AND a.datid <> (SELECT oid FROM pg_database WHERE datname = current_database())))
        """
    }

    /// Takes up to `limit` of the pushes waiting for their first claim, in the
    /// order their transactions committed, never past a transaction still
    /// running that may queue some (`barrier(passingEnded: true)`, read with the
    /// cursor's lock, before the claim's reads): every push behind the cursor
    /// has committed or never will, so none is passed over, whichever node
    /// queued it and however long its transaction took. The cursor's row is the
    /// claim's lock (`SKIP LOCKED`: a dispatcher that finds another
    /// claiming takes none this time, and its next turn comes). What is taken is
    /// named in one claim row (its `unanswered`), however many; a push
    /// superseded or dropped on the way has its end, and one ended already
    /// (superseded when queued, dropped with its target's token) is passed over.
    func claimInCommitOrder(limit: Int, now: Date, _ connection: PostgresConnection) async throws -> [ClaimedPush] {
        guard limit > 0, let barrier = try await connection.query("""
            SELECT \(unescaped: Self.barrier(passingEnded: true))::text FROM outbox_cursor FOR UPDATE SKIP LOCKED
            """, logger: logger).decodeFirst(String.self) else { return [] }
        var claimed: [ClaimedPush] = []
        // The last push this claim has passed, the cursor's row written once at
        // the end: a version for each turn of the loop would make every read of
        // the cursor walk them all.
        var passed: Int64?
        while claimed.count < limit {
            let asked = limit - claimed.count
            let from = passed.map { "(m.written_by, m.id) > ((SELECT written_by FROM outbox_message WHERE id = \($0)), \($0))" }
                ?? Self.pastTheCursor
            let rows = try await entries(try await connection.query("""
                SELECT \(unescaped: Self.messageColumns), COALESCE(e.state, 'pending'), NULL::text, 0, m.created_at
                FROM outbox_message m LEFT JOIN outbox_end e ON e.id = m.id
                WHERE m.written_by IS NOT NULL AND \(unescaped: from) AND m.written_by < \(barrier)::xid8
                ORDER BY m.written_by, m.id LIMIT \(asked)
                """, logger: logger).decodeAll(OutboxColumns.self), connection)
            guard let last = rows.last else { break }

            let waiting = rows.filter { $0.state == .pending }
            let superseded = try await supersedeWhereNewer(waiting: waiting.filter(\.message.supersedable), connection)
            let decided = try await sendOrDrop(waiting.filter { !superseded.contains($0.id.rawValue) }, at: now, connection)
            claimed += decided.claimed
            if !decided.dropped.isEmpty {
                try await connection.query("""
                    INSERT INTO outbox_end (id, attempts, state, outcome)
                    SELECT id, 0, 'dropped', reason
                    FROM UNNEST(\(decided.dropped.map(\.id))::int8[], \(decided.dropped.map(\.reason))::text[]) AS t(id, reason)
                    """, logger: logger)
            }
            passed = last.id.rawValue
            if rows.count < asked { break }
        }
        if let passed {
            try await connection.query("""
                UPDATE outbox_cursor SET written_by = m.written_by, id = m.id FROM outbox_message m WHERE m.id = \(passed)
                """, logger: logger)
        }
        if !claimed.isEmpty {
            try await connection.query("""
                INSERT INTO outbox_claim (claimed_by, claimed_at, unanswered)
                VALUES ((SELECT code FROM node WHERE id = \(node)), \(now), \(claimed.map(\.id.rawValue)))
                """, logger: logger)
        }
        return claimed
    }

    /// Of the pushes `waiting` for their first claim, those with a newer push
    /// to their target end `superseded`: their ids. Their targets are given, so
    /// that only the messages' index by target is read.
    private func supersedeWhereNewer(waiting: [OutboxEntry], _ connection: PostgresConnection) async throws -> Set<Int64> {
        guard !waiting.isEmpty else { return [] }
        return Set(try await connection.query("""
            INSERT INTO outbox_end (id, attempts, state, outcome)
            SELECT m.id, 0, 'superseded', \(QueuedPushRules.supersededReason)
            FROM (SELECT id, kind::push_target_kind AS target_kind, target_id
                  FROM UNNEST(\(waiting.map(\.id.rawValue))::int8[], \(waiting.map(\.message.target.kind.rawValue))::text[],
                              \(waiting.map(\.message.target.id))::text[]) AS t(id, kind, target_id)) m
            WHERE \(unescaped: Self.newerPushQueued)
            RETURNING id
            """, logger: logger).decodeAll(Int64.self))
    }

    /// The pushes to `targets` waiting for their first claim end as `state`,
    /// with `outcome`: under the cursor's lock, so that no claim takes them
    /// meanwhile (a claim taking them now is waited for, and they are then behind
    /// the cursor, being sent).
    func endWaiting(to targets: [PushTarget], as state: OutboxState, _ outcome: String,
                    _ connection: PostgresConnection) async throws {
        guard !targets.isEmpty else { return }
        try await connection.query("SELECT 1 FROM outbox_cursor FOR UPDATE", logger: logger)
        try await connection.query("""
            INSERT INTO outbox_end (id, attempts, state, outcome)
            SELECT m.id, 0, \(state.rawValue), \(outcome)
            FROM outbox_message m, UNNEST(\(targets.map(\.kind.rawValue))::text[], \(targets.map(\.id))::text[]) AS t(kind, id)
            WHERE m.target_kind = t.kind::push_target_kind AND m.target_id = t.id AND \(unescaped: Self.waitingForItsFirstClaim)
            ORDER BY m.id
            """, logger: logger)
    }
}
