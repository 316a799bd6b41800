import GRDB

extension Schema {
    /// An adventure's pushes are found through its ticks, not an index of their
    /// own: `outboxMessage_byAdventure` put each tick's entries in the adventure's
    /// place, a page and a half of the six a tick wrote after v14. The pushes a
    /// tick queues are numbered one after another in its write, so its row in
    /// `tickEvents` names the first and the last (`firstPush`, `lastPush`; a tick
    /// that queued pushes and had no events has a row with no events), and
    /// `tickEvents_byAdventure` finds them. The few pushes queued outside a tick
    /// (at the start, when a follower joins) and every push stored before this
    /// migration keep a partial index, `outboxMessage_outsideTicks`.
    static func v15PushesThroughTicks(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE tickEvents ADD COLUMN firstPush INTEGER;
            ALTER TABLE tickEvents ADD COLUMN lastPush INTEGER;
            ALTER TABLE outboxMessage ADD COLUMN inTickRange BOOLEAN NOT NULL DEFAULT 0;
            CREATE INDEX outboxMessage_outsideTicks ON outboxMessage(adventure, id) WHERE NOT inTickRange AND adventure IS NOT NULL;
            DROP INDEX outboxMessage_byAdventure;
            """)
    }
}
