import GRDB

extension Schema {
    /// An adventure's tick rows are found through a chain, not an index: the
    /// adventure names its newest row (`lastTickRow`) and each row the one before
    /// it (`previous`). `tickEvents_byAdventure` put each tick's entry in its
    /// adventure's place, a page and a half of the 4.6 a tick wrote after v15,
    /// while the adventure's row, which now carries the link, is written by every
    /// tick anyway. Every read of tick rows reads all of an adventure's (replay,
    /// the event log, its pushes through their ranges), and each row was a lookup
    /// by id already, the rows lying in write order; the chain only replaces the
    /// index's range. No two rows of an adventure share a tick: a tick is stored
    /// only over `lastTick` one below it. Rows stored before are chained here in
    /// tick order.
    static func v16ChainedTicks(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE tickEvents ADD COLUMN previous INTEGER;
            ALTER TABLE adventure ADD COLUMN lastTickRow INTEGER;
            UPDATE tickEvents SET previous = (
                SELECT p.id FROM tickEvents p WHERE p.adventure = tickEvents.adventure AND p.tick < tickEvents.tick
                ORDER BY p.tick DESC LIMIT 1);
            UPDATE adventure SET lastTickRow = (
                SELECT t.id FROM tickEvents t WHERE t.adventure = adventure.id ORDER BY t.tick DESC LIMIT 1);
            DROP INDEX tickEvents_byAdventure;
            """)
    }
}
