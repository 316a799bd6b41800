extension PostgresSchema {
    /// A tick's events in its row of the tick log. Every stored tick already had
    /// a row there (which node stored it, and when), and most ticks had a second,
    /// in `tick_events`, with the same key: a heap tuple, an index entry and the
    /// adventure's id written twice per tick. Now one row holds both; `events` is
    /// NULL for a tick without any (`TickEventsText`). Ticks stored before v3
    /// began the tick log have their events and no node or time of storing.
    static let v12TickLogEvents = [
        "ALTER TABLE tick_log ADD COLUMN events TEXT CHECK (events <> '')",
        "ALTER TABLE tick_log ALTER COLUMN node DROP NOT NULL",
        "ALTER TABLE tick_log ALTER COLUMN stored_at DROP NOT NULL",
        """
        UPDATE tick_log SET events = e.events FROM tick_events e
        WHERE e.adventure = tick_log.adventure AND e.tick = tick_log.tick
        """,
        """
        INSERT INTO tick_log (adventure, tick, node, stored_at, events)
        SELECT e.adventure, e.tick, NULL, NULL, e.events FROM tick_events e
        WHERE NOT EXISTS (SELECT 1 FROM tick_log l WHERE l.adventure = e.adventure AND l.tick = e.tick)
        ORDER BY e.adventure, e.tick
        """,
        "DROP TABLE tick_events",
    ]
}
