import GRDB

extension Schema {
    /// Two indexes that took a page of their own per tick, gone. An index keyed
    /// by an adventure or a target puts each tick's entry in that adventure's or
    /// target's place, and a page goes whole into the WAL however small the entry:
    /// `pushLog_byAdventure` and `outboxMessage_byTarget` were 1.9 and 1.4 of the
    /// ten 2 KiB pages a tick wrote.
    ///
    /// - The push log is found through the pushes it answers: `pushLog_byOutbox`
    ///   grows in the order pushes were queued, on the same few pages as the rows.
    /// - A retried push is superseded when a newer push to its target was queued
    ///   while it was out (`newerQueued`, set by `enqueue` through the small index
    ///   of pushes being sent); a push never claimed has none, since queuing a
    ///   newer one supersedes it at once. Carried over for the pushes still open.
    static func v13IndexesInWriteOrder(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE outbox ADD COLUMN newerQueued INTEGER;
            UPDATE outbox SET newerQueued = (
                SELECT max(newer.id) FROM outboxMessage m JOIN outboxMessage newer
                    ON newer.targetKind = m.targetKind AND newer.targetID = m.targetID AND newer.id > m.id
                WHERE m.id = outbox.id)
            WHERE (state = 'pending' OR state = 'sending') AND supersedable;
            CREATE INDEX outbox_sendingSupersedable ON outbox(targetKind, targetID) WHERE state = 'sending' AND supersedable;
            DROP INDEX outboxMessage_byTarget;
            CREATE INDEX pushLog_byOutbox ON pushLog(outbox);
            DROP INDEX pushLog_byAdventure;
            """)
    }
}
