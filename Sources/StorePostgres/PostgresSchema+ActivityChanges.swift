extension PostgresSchema {
    /// The ticker holds each adventure's reachable activities between ticks and
    /// reads them again only when they changed: the due adventures come with how
    /// many changes each has had, a count that only grows and is the same exactly
    /// when the activities are. Triggers note every change, whichever statement
    /// makes it: an activity registered, its status, hero, player, language or
    /// frequent updates changed, a token installed or invalidated (a budget, which
    /// each tick writes, is not a change). A change is a row of its own, inserted
    /// and never updated: two transactions that change one adventure's activities
    /// at once take no lock in common, and a count, unlike a sequence's highest
    /// value, cannot miss a change that commits after a later one.
    static let v20ActivityChanges = [
        "CREATE TABLE activity_change (adventure TEXT NOT NULL)",
        "CREATE INDEX activity_change_by_adventure ON activity_change(adventure)",
        """
        CREATE FUNCTION note_activity_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO activity_change (adventure) VALUES (NEW.adventure);
            RETURN NULL;
        END $$
        """,
        """
        CREATE FUNCTION note_activity_token_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO activity_change (adventure) SELECT adventure FROM live_activity WHERE id = NEW.activity;
            RETURN NULL;
        END $$
        """,
        """
        CREATE TRIGGER live_activity_changed
        AFTER INSERT OR UPDATE OF status, hero_id, player, locale, frequent_updates ON live_activity
        FOR EACH ROW EXECUTE FUNCTION note_activity_change()
        """,
        """
        CREATE TRIGGER activity_token_changed AFTER INSERT OR UPDATE OF invalidated_at ON activity_token
        FOR EACH ROW EXECUTE FUNCTION note_activity_token_change()
        """,
    ]
}
