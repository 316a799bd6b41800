extension PostgresSchema {
    /// The push log is appended to and read by adventure in commit order
    /// (`push_log_by_adventure_in_commit_order`, which ends in the entry's number)
    /// or by time (`push_log_by_sent_at`), never by its number alone: the key on
    /// `id` cost an entry per answer, 1.8 % of a tick's WAL, to check a number the
    /// sequence already makes unique. Nothing updates or deletes an entry, so no
    /// replica identity is needed to replicate it logically.
    static let v19PushLogWithoutKey = [
        "ALTER TABLE push_log DROP CONSTRAINT push_log_pkey",
    ]
}
