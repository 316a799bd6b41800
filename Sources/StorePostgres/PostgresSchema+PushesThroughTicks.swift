extension PostgresSchema {
    /// An adventure's pushes are found through its ticks, as on SQLite (its v15),
    /// not an index of their own: `outbox_message_by_adventure` took an entry per
    /// push, some 200 bytes of WAL per adventure-tick. A tick's row in the tick
    /// log names the pushes the tick queued (`pushes`; NULL for none); the ids
    /// are listed, not given as a range, since other transactions draw from the
    /// same sequence meanwhile. The few pushes queued outside a tick (at the
    /// start, when a follower joins) and every push stored before this migration
    /// keep a partial index, `outbox_message_outside_ticks`.
    static let v18PushesThroughTicks = [
        "ALTER TABLE tick_log ADD COLUMN pushes BIGINT[]",
        "ALTER TABLE outbox_message ADD COLUMN in_tick_log BOOLEAN NOT NULL DEFAULT false",
        """
        CREATE INDEX outbox_message_outside_ticks ON outbox_message(adventure, id)
        WHERE NOT in_tick_log AND adventure IS NOT NULL
        """,
        "DROP INDEX outbox_message_by_adventure",
    ]
}
