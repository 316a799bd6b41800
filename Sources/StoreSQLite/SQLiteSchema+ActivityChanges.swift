import GRDB

extension Schema {
    /// The ticker holds each adventure's reachable activities between ticks and
    /// reads them again only when they changed: the due adventures come with how
    /// many changes each has had, a count that only grows and is the same exactly
    /// when the activities are. Triggers note every change, whichever statement
    /// makes it: an activity registered, its status, hero, player, language or
    /// frequent updates changed, a token installed or invalidated. A change is a
    /// row of its own, inserted and never updated, as on PostgreSQL (its v20).
    static func v17ActivityChanges(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE activityChange (adventure TEXT NOT NULL);
            CREATE INDEX activityChange_byAdventure ON activityChange(adventure);
            CREATE TRIGGER liveActivity_added AFTER INSERT ON liveActivity BEGIN
                INSERT INTO activityChange (adventure) VALUES (NEW.adventure);
            END;
            CREATE TRIGGER liveActivity_changed AFTER UPDATE OF status, heroID, player, locale, frequentUpdates ON liveActivity BEGIN
                INSERT INTO activityChange (adventure) VALUES (NEW.adventure);
            END;
            CREATE TRIGGER activityToken_added AFTER INSERT ON activityToken BEGIN
                INSERT INTO activityChange (adventure) SELECT adventure FROM liveActivity WHERE id = NEW.activity;
            END;
            CREATE TRIGGER activityToken_changed AFTER UPDATE OF invalidatedAt ON activityToken BEGIN
                INSERT INTO activityChange (adventure) SELECT adventure FROM liveActivity WHERE id = NEW.activity;
            END;
            """)
    }
}
