extension PostgresSchema {
    /// The adventure's state and a tick's events as bytes (`StoredGameText`): a
    /// tick's state is written over at every tick and its events once, some 990
    /// bytes of JSON a PostgreSQL record holds as they are, stored deflated in some
    /// 230. What was stored before is carried over as its UTF-8 text, which is a
    /// stored form of its own (first byte `{`). Both tables are rewritten once, under
    /// their locks: on a large database this migration takes as long as copying
    /// them (docs/operations.md).
    static let v21DeflatedGameText = [
        "ALTER TABLE tick_log DROP CONSTRAINT tick_log_events_check",
        "ALTER TABLE tick_log ALTER COLUMN events TYPE bytea USING convert_to(events, 'UTF8')",
        "ALTER TABLE tick_log ADD CONSTRAINT tick_log_events_check CHECK (octet_length(events) > 0)",
        "ALTER TABLE adventure ALTER COLUMN state TYPE bytea USING convert_to(state, 'UTF8')",
    ]
}
