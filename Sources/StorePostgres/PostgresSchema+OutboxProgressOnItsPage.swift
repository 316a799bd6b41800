extension PostgresSchema {
    /// A push's progress row is written three times: queued, claimed, answered.
    /// Its claim and its answer change `state`, which the partial indexes'
    /// predicates read, so neither can be HOT; but a new version that fits on
    /// the old one's page is logged as the change from it (the bytes it shares
    /// with it are left out), where one on another page is logged whole, after a
    /// record that locks the old one. With the queued rows filling a page to 30
    /// percent, the claimed versions fit beside them, and the answered ones where
    /// the queued versions, dead once the claim committed, have been pruned. The
    /// price is room: a page keeps some 20 finished rows, where pages filled whole
    /// and vacuumed would keep some 50 (the message, apart, is some 830 bytes).
    static let v17OutboxProgressOnItsPage = [
        "ALTER TABLE outbox SET (fillfactor = 30)",
    ]
}
