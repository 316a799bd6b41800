extension PostgresSchema {
    /// The columns every push writes as text, where a code says the same in
    /// fewer bytes: a heap row goes into the WAL with every byte it holds, and a
    /// message and its log entry are written once per push.
    ///
    /// - The topic (the app's bundle id and a suffix, some 66 bytes, the same for
    ///   nearly every push) is a code into `push_topic`, which every node shares;
    ///   a node registers a topic the first time it meets it (`topicCodes`).
    /// - The target's kind and the push type are enums: four bytes, not thirteen,
    ///   in the row and in the index by target. A push type the server adds later
    ///   is a migration that adds its value (`ALTER TYPE … ADD VALUE`).
    /// - The push log's token is its bytes, read back as the hex it was (a token's
    ///   hex is lowercase, `PushToken`) or, for a followers' channel, its id as
    ///   UTF-8: the target's kind says which, as it does for `PushDestination`.
    /// - APNs' id is a `uuid` when it is one in the lowercase canonical form that
    ///   this server sends and that `uuid` reads back; any other text APNs returns
    ///   is kept as it came, in `apns_id_not_uuid`.
    ///
    /// Both tables are made again, their rows copied in order, the fixed-width
    /// columns first so that none is padded (as long as copying them,
    /// docs/operations.md). A device token that is not lowercase hex stops the
    /// migration before anything is changed, as does an entry with no push (whose
    /// kind would say how to read its token): the database is left as it is.
    static let v23PushColumnsAsCodes = [
        """
        DO $$ BEGIN
            IF EXISTS (SELECT 1 FROM push_log l LEFT JOIN outbox_message m ON m.id = l.outbox
                       WHERE m.id IS NULL OR (m.target_kind <> 'followerChannel' AND l.token !~ '^([0-9a-f]{2})+$')) THEN
                RAISE EXCEPTION 'v23-push-columns-as-codes: a push log entry has no push, or names a device token that is not lowercase hex';
            END IF;
        END $$
        """,
        "CREATE TYPE push_target_kind AS ENUM ('liveActivity', 'pushToStart', 'pushToTalk', 'followerChannel')",
        """
        CREATE TYPE apns_push_type AS ENUM ('alert', 'background', 'liveactivity', 'pushtotalk', 'voip', 'location',
                                            'complication', 'fileprovider', 'mdm')
        """,
        "CREATE TABLE push_topic (code INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY, topic TEXT NOT NULL UNIQUE)",
        "INSERT INTO push_topic (topic) SELECT DISTINCT topic FROM outbox_message ORDER BY topic",

        "DROP INDEX outbox_message_by_target",
        "DROP INDEX outbox_message_outside_ticks",
        "ALTER TABLE outbox_message RENAME TO outbox_message_before_v23",
        "ALTER INDEX outbox_message_pkey RENAME TO outbox_message_before_v23_pkey",
        """
        CREATE TABLE outbox_message (
            id BIGINT PRIMARY KEY,
            expiration BIGINT NOT NULL CHECK (expiration >= 0),
            created_at TIMESTAMPTZ NOT NULL,
            priority INTEGER NOT NULL CHECK (priority IN (1, 5, 10)),
            tick INTEGER,
            topic_code INTEGER NOT NULL,
            target_kind push_target_kind NOT NULL,
            push_type apns_push_type NOT NULL,
            has_alert BOOLEAN NOT NULL,
            is_end BOOLEAN NOT NULL,
            in_tick_log BOOLEAN NOT NULL DEFAULT false,
            adventure TEXT,
            target_id TEXT NOT NULL,
            reason TEXT NOT NULL,
            payload BYTEA NOT NULL CHECK (length(payload) > 0)
        )
        """,
        """
        INSERT INTO outbox_message (id, expiration, created_at, priority, tick, topic_code, target_kind, push_type, has_alert,
                                    is_end, in_tick_log, adventure, target_id, reason, payload)
        SELECT m.id, m.expiration, m.created_at, m.priority, m.tick, t.code, m.target_kind::push_target_kind,
               m.push_type::apns_push_type, m.has_alert, m.is_end, m.in_tick_log, m.adventure, m.target_id, m.reason, m.payload
        FROM outbox_message_before_v23 m JOIN push_topic t ON t.topic = m.topic ORDER BY m.id
        """,
        "CREATE INDEX outbox_message_by_target ON outbox_message(target_kind, target_id, id)",
        """
        CREATE INDEX outbox_message_outside_ticks ON outbox_message(adventure, id)
        WHERE NOT in_tick_log AND adventure IS NOT NULL
        """,

        "DROP INDEX push_log_by_adventure_in_commit_order",
        "DROP INDEX push_log_by_sent_at",
        "ALTER TABLE push_log RENAME TO push_log_before_v23",
        """
        CREATE TABLE push_log (
            id BIGINT NOT NULL DEFAULT nextval('push_log_id_seq'),
            outbox BIGINT NOT NULL,
            written_by xid8 NOT NULL DEFAULT pg_current_xact_id(),
            sent_at TIMESTAMPTZ NOT NULL,
            status INTEGER,
            attempts INTEGER NOT NULL,
            apns_id UUID,
            adventure TEXT,
            token BYTEA NOT NULL,
            reason TEXT,
            apns_id_not_uuid TEXT
        )
        """,
        """
        INSERT INTO push_log (id, outbox, written_by, sent_at, status, attempts, apns_id, adventure, token, reason, apns_id_not_uuid)
        SELECT l.id, l.outbox, l.written_by, l.sent_at, l.status, l.attempts,
               CASE WHEN id.is_uuid THEN l.apns_id::uuid END,
               l.adventure,
               CASE WHEN m.target_kind = 'followerChannel' THEN convert_to(l.token, 'UTF8') ELSE decode(l.token, 'hex') END,
               l.reason,
               CASE WHEN NOT id.is_uuid THEN l.apns_id END
        FROM push_log_before_v23 l JOIN outbox_message m ON m.id = l.outbox,
             LATERAL (SELECT l.apns_id ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' AS is_uuid) id
        ORDER BY l.id
        """,
        "ALTER SEQUENCE push_log_id_seq OWNED BY push_log.id",
        "CREATE INDEX push_log_by_adventure_in_commit_order ON push_log(adventure, written_by, id)",
        "CREATE INDEX push_log_by_sent_at ON push_log USING brin (sent_at) WITH (autosummarize = on)",
        "DROP TABLE push_log_before_v23",
        "DROP TABLE outbox_message_before_v23",
    ]
}
