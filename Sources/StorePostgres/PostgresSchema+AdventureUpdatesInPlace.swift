extension PostgresSchema {
    /// A running tick changes no column the adventure's indexes hold but
    /// `next_tick_at`, which only `adventure_due` held: without it the update is
    /// HOT, a new version on the same page and no index entry, where it was a
    /// new version anywhere and an entry in each of the table's four indexes.
    /// Half of each page is left free for those versions. The due adventures can
    /// be read through the node's leases (`adventure_by_lease_holder`) and the
    /// ones to take through the running adventures (the partial
    /// `adventure_one_running_per_party`), or the table, as the planner finds
    /// cheaper: each pass read every running adventure already, for the fair share.
    static let v16AdventureUpdatesInPlace = [
        "DROP INDEX adventure_due",
        "ALTER TABLE adventure SET (fillfactor = 50)",
    ]
}
