import GRDB

extension Schema {
    /// A push's message apart from its progress. A push was one outbox row of
    /// several hundred bytes (its payload and headers), a few to a page, and a
    /// page goes whole into the WAL each time one of its rows changes: when the
    /// push is queued, claimed, answered or superseded. What the policy decided
    /// (payload, headers, adventure, tick) is now written once into
    /// `outboxMessage`, with the indexes by adventure and by target; `outbox`
    /// keeps what changes (state, attempts, the claim), rows small enough that a
    /// batch of claims or answers shares a few pages, and the target and
    /// supersedable flag its index of pending pushes needs. Both rows have one id.
    ///
    /// SQLite cannot drop a column a check or an index names, so the outbox is
    /// made again under its name (SQLite's documented way, "Making Other Kinds Of
    /// Table Schema Changes"); the push log's reference to it then names the new
    /// table. Every row is carried over, and ids keep counting from where they were.
    static func v12OutboxMessage(_ db: Database) throws {
        let lastID = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'outbox'")
        try db.execute(sql: """
            CREATE TABLE outboxMessage (
                id INTEGER PRIMARY KEY,
                adventure TEXT REFERENCES adventure(id),
                targetKind TEXT NOT NULL CHECK (targetKind = 'liveActivity' OR targetKind = 'pushToStart'
                    OR targetKind = 'pushToTalk' OR targetKind = 'followerChannel'),
                targetID TEXT NOT NULL,
                pushType TEXT NOT NULL,
                topic TEXT NOT NULL,
                priority INTEGER NOT NULL CHECK (priority = 1 OR priority = 5 OR priority = 10),
                expiration INTEGER NOT NULL CHECK (expiration >= 0),
                payload BLOB NOT NULL CHECK (length(payload) > 0),
                reason TEXT NOT NULL,
                hasAlert BOOLEAN NOT NULL,
                isEnd BOOLEAN NOT NULL,
                tick INTEGER,
                createdAt DATETIME NOT NULL
            );
            INSERT INTO outboxMessage (id, adventure, targetKind, targetID, pushType, topic, priority, expiration, payload,
                                       reason, hasAlert, isEnd, tick, createdAt)
            SELECT id, adventure, targetKind, targetID, pushType, topic, priority, expiration, payload,
                   reason, hasAlert, isEnd, tick, createdAt FROM outbox ORDER BY id;
            CREATE INDEX outboxMessage_byTarget ON outboxMessage(targetKind, targetID, id);
            CREATE INDEX outboxMessage_byAdventure ON outboxMessage(adventure, id);

            CREATE TABLE outboxProgress (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                targetKind TEXT NOT NULL CHECK (targetKind = 'liveActivity' OR targetKind = 'pushToStart'
                    OR targetKind = 'pushToTalk' OR targetKind = 'followerChannel'),
                targetID TEXT NOT NULL,
                supersedable BOOLEAN NOT NULL,
                state TEXT NOT NULL CHECK (state = 'pending' OR state = 'sending' OR state = 'sent' OR state = 'failed'
                    OR state = 'superseded' OR state = 'dropped'),
                outcome TEXT,
                attempts INTEGER NOT NULL DEFAULT 0,
                nextAttemptAt DATETIME NOT NULL,
                claimedAt DATETIME,
                claimedBy TEXT
            );
            INSERT INTO outboxProgress (id, targetKind, targetID, supersedable, state, outcome, attempts, nextAttemptAt,
                                        claimedAt, claimedBy)
            SELECT id, targetKind, targetID, supersedable, state, outcome, attempts, nextAttemptAt, claimedAt, claimedBy
            FROM outbox ORDER BY id;
            DROP TABLE outbox;
            ALTER TABLE outboxProgress RENAME TO outbox;
            CREATE INDEX outbox_pending ON outbox(id) WHERE state = 'pending';
            CREATE INDEX outbox_sending ON outbox(id) WHERE state = 'sending';
            CREATE INDEX outbox_due ON outbox(nextAttemptAt, id) WHERE state = 'pending';
            CREATE INDEX outbox_pendingSupersedable ON outbox(targetKind, targetID) WHERE state = 'pending' AND supersedable;
            """)
        if let lastID {
            try db.execute(sql: "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'outbox'", arguments: [lastID])
            if db.changesCount == 0 {
                try db.execute(sql: "INSERT INTO sqlite_sequence (name, seq) VALUES ('outbox', ?)", arguments: [lastID])
            }
        }
    }
}
