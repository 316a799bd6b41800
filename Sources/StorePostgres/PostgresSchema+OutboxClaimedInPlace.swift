extension PostgresSchema {
    /// A push's claim written in place (HOT). The progress row's partial indexes
    /// read `state`, which its claim changes, so the claim wrote a new version
    /// with an entry in the key and in the index of pushes being sent, beside the
    /// index of pending pushes by target each queued row took. Now one partial
    /// index lists the pushes not finished, on `finished`, which a claim does not
    /// change (pending and sending are both unfinished): the claim's new version
    /// stays on its page (v17) with no index entry, and only the answer, which
    /// finishes the push, writes one in the key. Pending pushes to a target are
    /// found through their messages' index by target, from the oldest push not
    /// finished on, so the progress row no longer keeps its target. `finished`
    /// is computed from `state` by PostgreSQL, so no write can make them
    /// disagree. Adding it rewrites the table once (docs/operations.md).
    static let v22OutboxClaimedInPlace = [
        "DROP INDEX outbox_pending",
        "DROP INDEX outbox_sending",
        "DROP INDEX outbox_pending_by_target",
        "ALTER TABLE outbox DROP COLUMN target_kind, DROP COLUMN target_id",
        "ALTER TABLE outbox ADD COLUMN finished BOOLEAN NOT NULL GENERATED ALWAYS AS (state NOT IN ('pending', 'sending')) STORED",
        "CREATE INDEX outbox_unfinished ON outbox(id) WHERE NOT finished",
    ]
}
