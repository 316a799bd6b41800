extension PostgresSchema {
    /// The push log without what the push's message already holds: its target,
    /// push type and priority were written again with every answer, and every
    /// read of the log joins the message anyway (for its tick, reason and payload).
    /// An entry keeps what only the answer knows (the token it went to, APNs'
    /// status, reason and id, the attempt, when) and its adventure, which its
    /// index orders by. Before anything is dropped, every entry is checked to say
    /// the same as its message: a database where one does not is left as it is.
    static let v13LeanPushLog = [
        """
        DO $$ BEGIN
            IF EXISTS (SELECT 1 FROM push_log l LEFT JOIN outbox_message m ON m.id = l.outbox
                       WHERE m.id IS NULL
                          OR (l.target_kind, l.target_id, l.push_type, l.priority)
                             IS DISTINCT FROM (m.target_kind, m.target_id, m.push_type, m.priority)) THEN
                RAISE EXCEPTION 'v13-lean-push-log: a push log entry says another target, push type or priority than its push';
            END IF;
        END $$
        """,
        "ALTER TABLE push_log DROP COLUMN target_kind, DROP COLUMN target_id, DROP COLUMN push_type, DROP COLUMN priority",
    ]
}
