extension PostgresSchema {
    /// The tick log, the messages and the push log are written only in the
    /// transaction that has just written their adventure (the tick's update) or
    /// read their push `FOR UPDATE` (an answer), and nothing deletes adventures or
    /// pushes; a foreign key checked that again for every row, a query and a row
    /// lock on the adventure each (about five an adventure-tick).
    static let v15LogsWithoutForeignKeys = [
        "ALTER TABLE tick_log DROP CONSTRAINT tick_log_adventure_fkey",
        "ALTER TABLE outbox_message DROP CONSTRAINT outbox_message_adventure_fkey",
        "ALTER TABLE push_log DROP CONSTRAINT push_log_outbox_fkey, DROP CONSTRAINT push_log_adventure_fkey",
    ]
}
