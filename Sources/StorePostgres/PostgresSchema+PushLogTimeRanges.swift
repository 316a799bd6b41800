extension PostgresSchema {
    /// The console's delivery health reads the push log by time (the last hour's
    /// answers). Entries are appended about in the order of `sent_at`, so a block
    /// range index (the least and greatest time of each 128 pages) finds the last
    /// hour's pages as well as a B-tree of every entry did, and costs an answer
    /// nothing to write: an entry appended to the pages not yet summarized touches
    /// no index page (the B-tree took an entry, 1.5 % of a tick's WAL). A range
    /// is summarized once it is full (`autosummarize`: autovacuum does it, within
    /// its nap time); until then a read takes all of its pages.
    static let v14PushLogTimeRanges = [
        "DROP INDEX push_log_by_sent_at",
        "CREATE INDEX push_log_by_sent_at ON push_log USING brin (sent_at) WITH (autosummarize = on)",
    ]
}
