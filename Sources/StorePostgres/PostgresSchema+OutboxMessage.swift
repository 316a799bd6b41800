extension PostgresSchema {
    /// A push's message apart from its progress. What the policy decided (the
    /// payload, its headers, its adventure and tick) is written once, into
    /// `outbox_message`; `outbox` keeps what changes as the push is claimed and
    /// answered. Each of those changes writes a whole new row version and an entry
    /// in each of the table's indexes (never a HOT update: `state` is in the
    /// partial indexes' predicates), so the ~700-byte row written three times per
    /// push is now a small row written three times and the message once, and the
    /// indexes by adventure and by target, on the message, take one entry per push
    /// instead of one per version. The target is in both: `outbox` needs it for
    /// its index of pending pushes (superseded by a newer one, dropped with their
    /// token), the message for the index by target over every push (has a newer
    /// one gone or is it waiting?). Both rows share the outbox's id and are written
    /// in one statement; rows from before are carried over whole.
    static let v11OutboxMessage = [
        """
        CREATE TABLE outbox_message (
            id BIGINT PRIMARY KEY,
            adventure TEXT REFERENCES adventure(id),
            target_kind TEXT NOT NULL CHECK (target_kind IN ('liveActivity', 'pushToStart', 'pushToTalk', 'followerChannel')),
            target_id TEXT NOT NULL,
            push_type TEXT NOT NULL,
            topic TEXT NOT NULL,
            priority INTEGER NOT NULL CHECK (priority IN (1, 5, 10)),
            expiration BIGINT NOT NULL CHECK (expiration >= 0),
            payload BYTEA NOT NULL CHECK (length(payload) > 0),
            reason TEXT NOT NULL,
            has_alert BOOLEAN NOT NULL,
            is_end BOOLEAN NOT NULL,
            tick INTEGER,
            created_at TIMESTAMPTZ NOT NULL
        )
        """,
        """
        INSERT INTO outbox_message (id, adventure, target_kind, target_id, push_type, topic, priority, expiration, payload, reason,
                                    has_alert, is_end, tick, created_at)
        SELECT id, adventure, target_kind, target_id, push_type, topic, priority, expiration, payload, reason,
               has_alert, is_end, tick, created_at
        FROM outbox ORDER BY id
        """,
        "CREATE INDEX outbox_message_by_target ON outbox_message(target_kind, target_id, id)",
        "CREATE INDEX outbox_message_by_adventure ON outbox_message(adventure, id)",
        "DROP INDEX outbox_by_target",
        "DROP INDEX outbox_by_adventure",
        // Pending pushes by target, superseded or dropped all at once: an entry
        // only while a push waits, where the index by target has one for good.
        "DROP INDEX outbox_pending_supersedable",
        "CREATE INDEX outbox_pending_by_target ON outbox(target_kind, target_id) WHERE state = 'pending'",
        """
        ALTER TABLE outbox DROP COLUMN adventure, DROP COLUMN push_type, DROP COLUMN topic, DROP COLUMN priority,
            DROP COLUMN expiration, DROP COLUMN payload, DROP COLUMN reason, DROP COLUMN has_alert, DROP COLUMN is_end,
            DROP COLUMN tick, DROP COLUMN created_at
        """,
    ]
}
