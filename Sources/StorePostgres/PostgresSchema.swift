/// The PostgreSQL schema, as named migrations applied in order inside one
/// transaction. A migration that has landed is never edited: a change is a new
/// one appended here. Instants of the game (`started_at`, `next_tick_at`,
/// `expiration`) are unix seconds; wall-clock bookkeeping is `timestamptz`. The
/// event log, states and budgets are text: they must come back byte for byte.
enum PostgresSchema {
    struct Migration {
        var name: String
        var statements: [String]
    }

    static let migrations = [
        Migration(name: "v1", statements: v1),
        Migration(name: "v2-node", statements: v2Node),
        Migration(name: "v3-leases", statements: v3Leases),
        Migration(name: "v4-tick-phase", statements: v4TickPhase),
        Migration(name: "v5-followers", statements: v5Followers),
        Migration(name: "v6-push-log-order", statements: v6PushLogOrder),
        Migration(name: "v7-attempts", statements: v7Attempts),
        Migration(name: "v8-tick-events", statements: v8TickEvents),
        Migration(name: "v9-one-push-log-index", statements: v9OnePushLogIndex),
        Migration(name: "v10-console", statements: v10Console),
        Migration(name: "v11-outbox-message", statements: v11OutboxMessage),
        Migration(name: "v12-tick-log-events", statements: v12TickLogEvents),
        Migration(name: "v13-lean-push-log", statements: v13LeanPushLog),
        Migration(name: "v14-push-log-time-ranges", statements: v14PushLogTimeRanges),
        Migration(name: "v15-logs-without-foreign-keys", statements: v15LogsWithoutForeignKeys),
        Migration(name: "v16-adventure-updates-in-place", statements: v16AdventureUpdatesInPlace),
        Migration(name: "v17-outbox-progress-on-its-page", statements: v17OutboxProgressOnItsPage),
        Migration(name: "v18-pushes-through-ticks", statements: v18PushesThroughTicks),
        Migration(name: "v19-push-log-without-key", statements: v19PushLogWithoutKey),
        Migration(name: "v20-activity-changes", statements: v20ActivityChanges),
        Migration(name: "v21-deflated-game-text", statements: v21DeflatedGameText),
        Migration(name: "v22-outbox-claimed-in-place", statements: v22OutboxClaimedInPlace),
        Migration(name: "v23-push-columns-as-codes", statements: v23PushColumnsAsCodes),
        Migration(name: "v24-ids-compared-as-bytes", statements: v24IdsComparedAsBytes),
        Migration(name: "v25-ids-as-codes-in-the-logs", statements: v25IdsAsCodesInTheLogs),
        Migration(name: "v26-outbox-holds-unfinished-pushes", statements: v26OutboxHoldsUnfinishedPushes),
        Migration(name: "v27-pushes-claimed-in-commit-order", statements: v27PushesClaimedInCommitOrder),
    ]

    /// v6's index by (adventure, writing transaction, id) serves every read of an
    /// adventure's push log, the whole log's too (by adventure, then sorted); the
    /// index by (adventure, id) from v1 only cost an entry per push: 2 % of a
    /// tick's WAL.
    private static let v9OnePushLogIndex = [
        "DROP INDEX push_log_by_adventure",
    ]

    /// A tick's events in one row (`TickEventsText`) instead of a row per event:
    /// one heap tuple and one index entry per tick rather than five of each. Every
    /// stored event is carried over, in order, byte for byte.
    private static let v8TickEvents = [
        """
        CREATE TABLE tick_events (
            adventure TEXT NOT NULL REFERENCES adventure(id),
            tick INTEGER NOT NULL,
            events TEXT NOT NULL,
            PRIMARY KEY (adventure, tick)
        )
        """,
        """
        INSERT INTO tick_events (adventure, tick, events)
        SELECT adventure, tick, string_agg(event, E'\\n' ORDER BY position) FROM event GROUP BY adventure, tick
        """,
        "DROP TABLE event",
    ]

    /// The game master's console: its sessions, by the hash of the cookie's secret
    /// (so that any node knows them and a sign-out ends them everywhere), its
    /// audit trail, paged newest first by id, and the party directory's order.
    /// Times are unix seconds.
    private static let v10Console = [
        """
        CREATE TABLE console_session (
            secret_hash BYTEA PRIMARY KEY CHECK (length(secret_hash) = 32),
            reference TEXT NOT NULL UNIQUE,
            csrf_token TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL
        )
        """,
        "CREATE INDEX console_session_by_expiry ON console_session(expires_at)",
        // The console's party directory: by name byte for byte, as SQLite orders it, then id.
        #"CREATE INDEX party_by_name_and_id ON party ((name COLLATE "C"), id)"#,
        // The console's finished adventures: the latest end first.
        #"CREATE INDEX adventure_finished ON adventure (ended_at, (id COLLATE "C")) WHERE status <> 'running'"#,
        // The console's delivery health: the last hour's answers.
        "CREATE INDEX push_log_by_sent_at ON push_log(sent_at)",
        """
        CREATE TABLE console_audit (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            at BIGINT NOT NULL,
            action TEXT NOT NULL,
            session TEXT,
            client TEXT NOT NULL,
            detail TEXT NOT NULL
        )
        """,
    ]

    /// Attempts per key (a client address and what it tried) in the current fixed
    /// window, for the limits against abuse on every node: one row per key,
    /// rewritten in place.
    private static let v7Attempts = [
        "CREATE TABLE attempt (key TEXT PRIMARY KEY, window_start BIGINT NOT NULL, count INTEGER NOT NULL)",
    ]

    /// Each adventure's ticks fall due a fixed number of milliseconds into their
    /// second (`TickSchedule`), so that adventures do not all fall due at once;
    /// the due queue is ordered by second, then phase. Adventures from before keep
    /// phase 0: due at the start of their second, as they were.
    private static let v4TickPhase = [
        "ALTER TABLE adventure ADD COLUMN tick_phase INTEGER NOT NULL DEFAULT 0 CHECK (tick_phase >= 0 AND tick_phase < 1000)",
        "DROP INDEX adventure_due",
        "CREATE INDEX adventure_due ON adventure(next_tick_at, tick_phase) WHERE status = 'running'",
    ]

    /// Followers of an adventure and its broadcast channels (one per language),
    /// the follow code of a followable adventure, a follower's own Live Activity
    /// (no hero) and broadcasts in the outbox.
    private static let v5Followers = [
        // The outbox's target kind takes one more value. NOT VALID: the new check is
        // weaker than the one it replaces, which every stored row satisfied, so the
        // table (the outbox's history) is not scanned; new rows are checked.
        "ALTER TABLE outbox DROP CONSTRAINT outbox_target_kind_check",
        """
        ALTER TABLE outbox ADD CONSTRAINT outbox_target_kind_check
            CHECK (target_kind IN ('liveActivity', 'pushToStart', 'pushToTalk', 'followerChannel')) NOT VALID
        """,
        "ALTER TABLE live_activity ALTER COLUMN hero_id DROP NOT NULL",
        "ALTER TABLE adventure ADD COLUMN follow_code TEXT",
        // Set once a channel of the adventure opens: the ticker looks for channels
        // only in adventures that have had one.
        "ALTER TABLE adventure ADD COLUMN has_follower_channels BOOLEAN NOT NULL DEFAULT false",
        """
        CREATE TABLE follower (
            adventure TEXT NOT NULL REFERENCES adventure(id),
            player TEXT NOT NULL REFERENCES player(id),
            delivery TEXT NOT NULL CHECK (delivery IN ('channel', 'token')),
            language TEXT NOT NULL,
            device TEXT REFERENCES device(id),
            status TEXT NOT NULL CHECK (status IN ('following', 'left')),
            followed_at TIMESTAMPTZ NOT NULL,
            left_at TIMESTAMPTZ,
            CHECK ((delivery = 'token') = (device IS NOT NULL)),
            PRIMARY KEY (adventure, player)
        )
        """,
        """
        CREATE TABLE follower_channel (
            id TEXT PRIMARY KEY,
            adventure TEXT NOT NULL REFERENCES adventure(id),
            language TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('wanted', 'creating', 'open', 'deleted')),
            apns_channel_id TEXT,
            storage_policy INTEGER NOT NULL CHECK (storage_policy IN (0, 1)),
            ledger TEXT NOT NULL,
            claimed_by TEXT,
            attempt INTEGER NOT NULL DEFAULT 0,
            next_attempt_at TIMESTAMPTZ NOT NULL,
            note TEXT,
            created_at TIMESTAMPTZ NOT NULL,
            opened_at TIMESTAMPTZ,
            deleted_at TIMESTAMPTZ,
            CHECK (state <> 'open' OR apns_channel_id IS NOT NULL),
            CHECK ((state = 'creating') = (claimed_by IS NOT NULL)),
            UNIQUE (adventure, language)
        )
        """,
        "CREATE INDEX follower_channel_open ON follower_channel(adventure) WHERE state = 'open'",
        "CREATE INDEX follower_channel_unmade ON follower_channel(next_attempt_at) WHERE state IN ('wanted', 'creating')",
    ]

    /// Each push log entry remembers the transaction that wrote it. Entries'
    /// numbers come from a sequence when they are inserted, not when they commit:
    /// with several nodes answering pushes at once, a smaller number can become
    /// readable after a larger one. A reader that follows the log goes by the
    /// writing transactions instead, and only as far as every transaction before
    /// them has finished (`PostgresStore.pushLog(of:after:limit:)`). Rows from
    /// before this migration all carry the migration's own transaction.
    private static let v6PushLogOrder = [
        "ALTER TABLE push_log ADD COLUMN written_by xid8 NOT NULL DEFAULT pg_current_xact_id()",
        "CREATE INDEX push_log_by_adventure_in_commit_order ON push_log(adventure, written_by, id)",
    ]

    /// Several nodes share the adventures: each plays only those it holds a lease
    /// on, and every stored tick is logged once with the node that stored it.
    private static let v3Leases = [
        "ALTER TABLE adventure ADD COLUMN lease_holder TEXT",
        "ALTER TABLE adventure ADD COLUMN lease_until TIMESTAMPTZ",
        "CREATE INDEX adventure_by_lease_holder ON adventure(lease_holder) WHERE status = 'running'",
        """
        CREATE TABLE tick_log (
            adventure TEXT NOT NULL REFERENCES adventure(id),
            tick INTEGER NOT NULL CHECK (tick > 0),
            node TEXT NOT NULL,
            stored_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
            PRIMARY KEY (adventure, tick)
        )
        """,
        // Every lease taken, by whom and when: how often adventures move between nodes.
        """
        CREATE TABLE lease_log (
            id BIGSERIAL PRIMARY KEY,
            adventure TEXT NOT NULL REFERENCES adventure(id),
            node TEXT NOT NULL,
            taken_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
        )
        """,
    ]

    /// Each open store is a node with a heartbeat. A push claimed by a node whose
    /// heartbeat has lapsed was left by a process that stopped: it goes again.
    private static let v2Node = [
        """
        CREATE TABLE node (
            id TEXT PRIMARY KEY,
            started_at TIMESTAMPTZ NOT NULL,
            alive_until TIMESTAMPTZ NOT NULL,
            stopped_at TIMESTAMPTZ
        )
        """,
    ]

    private static let v1 = [
        """
        CREATE TABLE player (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL CHECK (length(name) > 0),
            api_key_hash BYTEA NOT NULL UNIQUE CHECK (length(api_key_hash) = 32),
            created_at TIMESTAMPTZ NOT NULL
        )
        """,
        """
        CREATE TABLE player_hero (
            player TEXT NOT NULL REFERENCES player(id),
            hero_id TEXT NOT NULL,
            PRIMARY KEY (player, hero_id)
        )
        """,
        """
        CREATE TABLE party (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL CHECK (length(name) > 0),
            invite_code TEXT NOT NULL UNIQUE,
            created_by TEXT NOT NULL REFERENCES player(id),
            created_at TIMESTAMPTZ NOT NULL
        )
        """,
        """
        CREATE TABLE membership (
            party TEXT NOT NULL REFERENCES party(id),
            player TEXT NOT NULL REFERENCES player(id),
            hero_id TEXT NOT NULL,
            joined_at TIMESTAMPTZ NOT NULL,
            joined_order BIGSERIAL,
            PRIMARY KEY (party, player),
            UNIQUE (party, hero_id)
        )
        """,
        "CREATE INDEX membership_by_player ON membership(player)",
        """
        CREATE TABLE device (
            id TEXT PRIMARY KEY,
            player TEXT NOT NULL REFERENCES player(id),
            push_to_start_token TEXT,
            push_to_start_token_registered_at TIMESTAMPTZ,
            push_to_start_token_invalid_at TIMESTAMPTZ,
            push_to_start_token_invalid_reason TEXT,
            locale TEXT NOT NULL,
            updated_at TIMESTAMPTZ NOT NULL
        )
        """,
        "CREATE INDEX device_by_player ON device(player)",
        "CREATE INDEX device_by_push_to_start_token ON device(push_to_start_token)",
        """
        CREATE TABLE adventure (
            id TEXT PRIMARY KEY,
            party TEXT NOT NULL REFERENCES party(id),
            route_id TEXT NOT NULL,
            content_version TEXT NOT NULL,
            seed TEXT NOT NULL,
            roster TEXT NOT NULL,
            tick_interval INTEGER NOT NULL CHECK (tick_interval > 0),
            time_limit INTEGER NOT NULL CHECK (time_limit > 0),
            started_at BIGINT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('running', 'victory', 'defeat', 'timeLimitReached', 'endedByGameMaster')),
            state TEXT NOT NULL,
            last_tick INTEGER NOT NULL CHECK (last_tick >= 0),
            next_tick_at BIGINT,
            ended_at BIGINT,
            CHECK ((status = 'running') = (next_tick_at IS NOT NULL))
        )
        """,
        // One running adventure per party, whoever starts one at the same moment.
        "CREATE UNIQUE INDEX adventure_one_running_per_party ON adventure(party) WHERE status = 'running'",
        "CREATE INDEX adventure_due ON adventure(next_tick_at) WHERE status = 'running'",
        """
        CREATE TABLE command (
            id BIGSERIAL PRIMARY KEY,
            adventure TEXT NOT NULL REFERENCES adventure(id),
            command TEXT NOT NULL,
            received_at TIMESTAMPTZ NOT NULL,
            tick INTEGER CHECK (tick > 0)
        )
        """,
        "CREATE INDEX command_by_adventure ON command(adventure, tick)",
        """
        CREATE TABLE event (
            adventure TEXT NOT NULL REFERENCES adventure(id),
            tick INTEGER NOT NULL,
            position INTEGER NOT NULL,
            event TEXT NOT NULL,
            PRIMARY KEY (adventure, tick, position)
        )
        """,
        """
        CREATE TABLE live_activity (
            id TEXT PRIMARY KEY,
            player TEXT NOT NULL REFERENCES player(id),
            adventure TEXT NOT NULL REFERENCES adventure(id),
            hero_id TEXT NOT NULL,
            frequent_updates BOOLEAN NOT NULL,
            locale TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('active', 'ended', 'dismissed')),
            ledger TEXT NOT NULL,
            created_at TIMESTAMPTZ NOT NULL,
            created_order BIGSERIAL
        )
        """,
        "CREATE INDEX live_activity_by_adventure ON live_activity(adventure, status)",
        """
        CREATE TABLE activity_token (
            id BIGSERIAL PRIMARY KEY,
            activity TEXT NOT NULL REFERENCES live_activity(id),
            token TEXT NOT NULL,
            registered_at TIMESTAMPTZ NOT NULL,
            invalidated_at TIMESTAMPTZ,
            invalid_reason TEXT,
            CHECK ((invalidated_at IS NULL) = (invalid_reason IS NULL))
        )
        """,
        // One valid update token per activity, whatever rotates at the same moment.
        "CREATE UNIQUE INDEX activity_token_one_valid ON activity_token(activity) WHERE invalidated_at IS NULL",
        "CREATE INDEX activity_token_by_token ON activity_token(token)",
        """
        CREATE TABLE outbox (
            id BIGSERIAL PRIMARY KEY,
            adventure TEXT REFERENCES adventure(id),
            target_kind TEXT NOT NULL CHECK (target_kind IN ('liveActivity', 'pushToStart', 'pushToTalk')),
            target_id TEXT NOT NULL,
            push_type TEXT NOT NULL,
            topic TEXT NOT NULL,
            priority INTEGER NOT NULL CHECK (priority IN (1, 5, 10)),
            expiration BIGINT NOT NULL CHECK (expiration >= 0),
            payload BYTEA NOT NULL CHECK (length(payload) > 0),
            reason TEXT NOT NULL,
            has_alert BOOLEAN NOT NULL,
            is_end BOOLEAN NOT NULL,
            supersedable BOOLEAN NOT NULL,
            tick INTEGER,
            state TEXT NOT NULL CHECK (state IN ('pending', 'sending', 'sent', 'failed', 'superseded', 'dropped')),
            outcome TEXT,
            attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_at TIMESTAMPTZ NOT NULL,
            claimed_at TIMESTAMPTZ,
            claimed_by TEXT,
            created_at TIMESTAMPTZ NOT NULL
        )
        """,
        "CREATE INDEX outbox_pending ON outbox(id) WHERE state = 'pending'",
        "CREATE INDEX outbox_sending ON outbox(claimed_at) WHERE state = 'sending'",
        "CREATE INDEX outbox_pending_supersedable ON outbox(target_kind, target_id) WHERE state = 'pending' AND supersedable",
        "CREATE INDEX outbox_by_target ON outbox(target_kind, target_id, id)",
        "CREATE INDEX outbox_by_adventure ON outbox(adventure, id)",
        """
        CREATE TABLE push_log (
            id BIGSERIAL PRIMARY KEY,
            outbox BIGINT NOT NULL REFERENCES outbox(id),
            adventure TEXT REFERENCES adventure(id),
            target_kind TEXT NOT NULL,
            target_id TEXT NOT NULL,
            token TEXT NOT NULL,
            push_type TEXT NOT NULL,
            priority INTEGER NOT NULL,
            status INTEGER,
            reason TEXT,
            apns_id TEXT,
            attempts INTEGER NOT NULL,
            sent_at TIMESTAMPTZ NOT NULL
        )
        """,
        "CREATE INDEX push_log_by_adventure ON push_log(adventure, id)",
        """
        CREATE TABLE channel (
            id TEXT PRIMARY KEY,
            party TEXT NOT NULL UNIQUE REFERENCES party(id),
            created_at TIMESTAMPTZ NOT NULL,
            closed_at TIMESTAMPTZ
        )
        """,
        """
        CREATE TABLE channel_member (
            id TEXT PRIMARY KEY,
            channel TEXT NOT NULL REFERENCES channel(id),
            player TEXT NOT NULL REFERENCES player(id),
            token TEXT,
            token_registered_at TIMESTAMPTZ,
            token_invalid_at TIMESTAMPTZ,
            token_invalid_reason TEXT,
            status TEXT NOT NULL CHECK (status IN ('joined', 'leaving', 'left')),
            joined_at TIMESTAMPTZ NOT NULL,
            left_at TIMESTAMPTZ,
            UNIQUE (channel, player)
        )
        """,
        "CREATE INDEX channel_member_by_token ON channel_member(token)",
        """
        CREATE TABLE transmission (
            id TEXT PRIMARY KEY,
            channel TEXT NOT NULL REFERENCES channel(id),
            speaker TEXT NOT NULL REFERENCES player(id),
            hero_id TEXT NOT NULL,
            content_type TEXT NOT NULL,
            duration_milliseconds INTEGER NOT NULL CHECK (duration_milliseconds > 0),
            byte_count INTEGER NOT NULL CHECK (byte_count > 0),
            audio BYTEA,
            created_at TIMESTAMPTZ NOT NULL,
            speaking_until TIMESTAMPTZ NOT NULL,
            audio_deleted_at TIMESTAMPTZ
        )
        """,
        "CREATE INDEX transmission_by_channel ON transmission(channel, speaking_until)",
        "CREATE INDEX transmission_by_age ON transmission(created_at) WHERE audio IS NOT NULL",
    ]
}
