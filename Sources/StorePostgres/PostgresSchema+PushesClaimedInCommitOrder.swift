extension PostgresSchema {
    /// A push queued since v27 has no progress row while nothing has happened to
    /// it: a claim takes the next pushes in the order their transactions
    /// committed, from one cursor, and names what it took in one row of its own
    /// (`outbox_claim`), not in a version and a row lock for each push. A push's
    /// progress row is written only when it has one to keep: to be tried again,
    /// or given back by a node that stopped (then it is claimed as before v27).
    ///
    /// The order of commits is the messages' `written_by` (the transaction that
    /// queued them), indexed with their ids; a claim never reads past the oldest
    /// transaction of this database still running (`commitOrderBarrier`), so
    /// that no push can commit behind the cursor once the cursor has passed it,
    /// whichever node queued it, as the push log's reader does (v6). The pushes queued before
    /// v27 have no `written_by` and keep their progress rows; the cursor starts
    /// before every transaction.
    ///
    /// Where an unfinished push is kept, since v27:
    /// - in `outbox` (pending or sending) when it has a progress row;
    /// - in a claim's `unanswered` while it is being sent from a claim;
    /// - past the cursor, in neither, while it waits for its first claim (as
    ///   superseded when a newer push to its target was queued since, which is
    ///   what its claim will make of it).
    static let v27PushesClaimedInCommitOrder = [
        "ALTER TABLE outbox_message ADD COLUMN written_by xid8",
        "ALTER TABLE outbox_message ALTER COLUMN written_by SET DEFAULT pg_current_xact_id()",
        "CREATE INDEX outbox_message_in_commit_order ON outbox_message(written_by, id) WHERE written_by IS NOT NULL",
        """
        CREATE TABLE outbox_cursor (
            one BOOLEAN PRIMARY KEY DEFAULT true CHECK (one),
            written_by xid8 NOT NULL,
            id BIGINT NOT NULL
        )
        """,
        "INSERT INTO outbox_cursor (written_by, id) VALUES ('0'::xid8, 0)",
        """
        CREATE TABLE outbox_claim (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            claimed_by INTEGER NOT NULL,
            claimed_at TIMESTAMPTZ NOT NULL,
            unanswered BIGINT[] NOT NULL CHECK (cardinality(unanswered) > 0)
        )
        """,
    ]
}
