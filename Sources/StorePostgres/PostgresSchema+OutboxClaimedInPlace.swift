extension PostgresSchema {
    /// A push's claim written in place (HOT). The progress row's partial indexes
    /// read `state`, which its claim changes, so the claim wrote a new version
    /// with an entry in the key and in the index of pushes being sent, beside the
    /// index of pending pushes by target each queued row took. Now one partial
    /// index lists the pushes not finished, on `finished`, which a claim does not
    /// change (pending and sending are both unfinished): the claim's new version
    /// stays on its page (v17) with no index entry, and only the answer, which
    /// finishes the push, writes one in the key. `finished` is computed from
    /// `state` by PostgreSQL, so no write can make them disagree. Pending pushes
    /// to a target are found through their messages' index by target, from the
    /// oldest push not finished on, so the progress row no longer keeps its target.
    ///
    /// The table is made again, its rows copied, for the order of its columns: a
    /// version on the page of the one before is logged without the bytes the two
    /// share at their start and end, so what the claim leaves as it is (the next
    /// attempt, the outcome) comes first, what the answer leaves (attempts, who
    /// claimed it, when) last, and what both change in the middle. As long as
    /// copying the table (docs/operations.md).
    static let v22OutboxClaimedInPlace = [
        "DROP INDEX outbox_pending",
        "DROP INDEX outbox_sending",
        "DROP INDEX outbox_pending_by_target",
        "ALTER TABLE outbox RENAME TO outbox_before_v22",
        "ALTER INDEX outbox_pkey RENAME TO outbox_before_v22_pkey",
        v22OutboxTable,
        """
        INSERT INTO outbox (id, supersedable, next_attempt_at, outcome, state, attempts, claimed_at, claimed_by)
        SELECT id, supersedable, next_attempt_at, outcome, state, attempts, claimed_at, claimed_by
        FROM outbox_before_v22 ORDER BY id
        """,
        "ALTER SEQUENCE outbox_id_seq OWNED BY outbox.id",
        "DROP TABLE outbox_before_v22",
        "CREATE INDEX outbox_unfinished ON outbox(id) WHERE NOT finished",
    ]

    /// v22's progress rows; what the migration tests put back for v26 too.
    static let v22OutboxTable = """
        CREATE TABLE outbox (
            id BIGINT PRIMARY KEY DEFAULT nextval('outbox_id_seq'),
            supersedable BOOLEAN NOT NULL,
            next_attempt_at TIMESTAMPTZ NOT NULL,
            outcome TEXT,
            state TEXT NOT NULL CHECK (state IN ('pending', 'sending', 'sent', 'failed', 'superseded', 'dropped')),
            finished BOOLEAN NOT NULL GENERATED ALWAYS AS (state NOT IN ('pending', 'sending')) STORED,
            attempts INTEGER NOT NULL DEFAULT 0,
            claimed_at TIMESTAMPTZ,
            claimed_by TEXT
        ) WITH (fillfactor = 30)
        """
}
