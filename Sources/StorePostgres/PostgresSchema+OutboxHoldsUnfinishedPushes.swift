extension PostgresSchema {
    /// A push's progress row lives while the push is unfinished, and goes with
    /// the answer or the decision that finishes it. Each finished push kept its
    /// row: the answer wrote a new version of it, with an entry in the key, and
    /// every push took an entry in the index of unfinished pushes on the way in.
    /// Now `outbox` holds only pending and sending pushes, so its key is the
    /// index of unfinished pushes. A deleted row is logged as its place, where
    /// an update logs its new version and the index entry.
    ///
    /// Where a finished push's end is kept:
    /// - a push sent since v26: nowhere but its entry in the push log, which
    ///   holds the push's claims (`push_log.claims`); sent is what a push is
    ///   when neither table below has it and its answer is logged;
    /// - a push that failed, was superseded or dropped: `outbox_end`, its state,
    ///   outcome and claims (a failed push's answer is in the push log too);
    /// - every push finished before v26: `outbox_end`, copied from its old row.
    ///
    /// Whether a newer push may supersede a push belongs to its message, which
    /// is kept for good, and moves there. The claim names its node by the node's
    /// code (v25), 4 bytes where the id took 37 in each claim's version. The
    /// table is made again from the unfinished rows, in the order a claim and an
    /// answer change them (v22): the columns a retry changes, then those a claim
    /// does. As long as copying the finished rows and marking the supersedable
    /// messages (docs/operations.md).
    static let v26OutboxHoldsUnfinishedPushes = [
        "ALTER TABLE outbox_message ADD COLUMN supersedable BOOLEAN NOT NULL DEFAULT false",
        "UPDATE outbox_message m SET supersedable = true FROM outbox o WHERE o.id = m.id AND o.supersedable",
        """
        CREATE TABLE outbox_end (
            id BIGINT PRIMARY KEY,
            attempts INTEGER NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('sent', 'failed', 'superseded', 'dropped')),
            outcome TEXT
        )
        """,
        "INSERT INTO outbox_end (id, attempts, state, outcome) SELECT id, attempts, state, outcome FROM outbox WHERE finished ORDER BY id",
        "ALTER TABLE push_log ADD COLUMN claims INTEGER",
        "DROP INDEX outbox_unfinished",
        "ALTER TABLE outbox RENAME TO outbox_before_v26",
        "ALTER INDEX outbox_pkey RENAME TO outbox_before_v26_pkey",
        """
        CREATE TABLE outbox (
            id BIGINT PRIMARY KEY DEFAULT nextval('outbox_id_seq'),
            next_attempt_at TIMESTAMPTZ NOT NULL,
            outcome TEXT,
            state TEXT NOT NULL CHECK (state IN ('pending', 'sending')),
            attempts INTEGER NOT NULL DEFAULT 0,
            claimed_at TIMESTAMPTZ,
            claimed_by INTEGER
        ) WITH (fillfactor = 30)
        """,
        """
        INSERT INTO outbox (id, next_attempt_at, outcome, state, attempts, claimed_at, claimed_by)
        SELECT o.id, o.next_attempt_at, o.outcome, o.state, o.attempts, o.claimed_at, n.code
        FROM outbox_before_v26 o LEFT JOIN node n ON n.id = o.claimed_by WHERE NOT o.finished ORDER BY o.id
        """,
        "ALTER SEQUENCE outbox_id_seq OWNED BY outbox.id",
        "DROP TABLE outbox_before_v26",
    ]
}
