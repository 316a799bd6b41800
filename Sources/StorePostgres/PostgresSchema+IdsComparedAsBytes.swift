extension PostgresSchema {
    /// Ids, tokens and codes compare as bytes (`COLLATE "C"`), whatever the
    /// database's locale. Every index on a text column compares its keys at each
    /// step down the tree, and a join or a sort on ids compares them again; under
    /// a locale such as `en_US.UTF-8` (what many installers and the `postgres`
    /// image choose) each comparison goes through the C library's collation
    /// rules, under "C" it is a `memcmp`. Ids have no linguistic order, and
    /// SQLite already orders them as bytes: both engines now order them alike.
    ///
    /// Which columns: each text column an index holds and both sides of every
    /// foreign key (`IdsComparedAsBytesTests` checks both), and the ids that are
    /// neither (who claimed a push, who stored a tick), so that no comparison of
    /// two ids mixes collations and leaves one side's index unused. What people
    /// write (names, reasons, notes, locales) keeps the database's collation; the
    /// party directory's index orders names as bytes already. Changing a
    /// column's collation leaves its rows where they are and builds its indexes
    /// again.
    ///
    /// A column a trigger names cannot change its type, so v20's trigger on the
    /// activities goes while their columns change and comes back as it was, in
    /// the same transaction: no change to an activity goes unnoted.
    static let v24IdsComparedAsBytes: [String] = ["DROP TRIGGER live_activity_changed ON live_activity"] + [
        ("player", ["id"]),
        ("player_hero", ["player", "hero_id"]),
        ("party", ["id", "created_by", "invite_code"]),
        ("membership", ["party", "player", "hero_id"]),
        ("device", ["id", "player", "push_to_start_token"]),
        ("adventure", ["id", "party", "lease_holder"]),
        ("command", ["adventure"]),
        ("live_activity", ["id", "player", "adventure", "hero_id", "status"]),
        ("activity_token", ["activity", "token"]),
        ("activity_change", ["adventure"]),
        ("channel", ["id", "party"]),
        ("channel_member", ["id", "channel", "player", "token"]),
        ("transmission", ["id", "channel", "speaker", "hero_id"]),
        ("node", ["id"]),
        ("lease_log", ["adventure", "node"]),
        ("follower", ["adventure", "player", "device"]),
        ("follower_channel", ["id", "adventure", "language", "apns_channel_id", "claimed_by"]),
        ("tick_log", ["adventure", "node"]),
        ("outbox", ["claimed_by"]),
        ("outbox_message", ["adventure", "target_id"]),
        ("push_log", ["adventure"]),
        ("push_topic", ["topic"]),
        ("attempt", ["key"]),
        ("console_session", ["reference"]),
        ("schema_migration", ["name"]),
    ].map { table, columns in
        "ALTER TABLE \(table) " + columns.map { "ALTER COLUMN \($0) TYPE TEXT COLLATE \"C\"" }.joined(separator: ", ")
    } + [
        """
        CREATE TRIGGER live_activity_changed
        AFTER INSERT OR UPDATE OF status, hero_id, player, locale, frequent_updates ON live_activity
        FOR EACH ROW EXECUTE FUNCTION note_activity_change()
        """,
    ]
}
