import Foundation
import GRDB
import Store

/// The schema, as named migrations. A migration that has landed is never edited:
/// a change to the schema is a new migration appended here, so every database,
/// however old, reaches the same shape by running the ones it has not run yet.
enum Schema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1", migrate: v1)
        migrator.registerMigration("v2-push-to-talk", migrate: v2PushToTalk)
        migrator.registerMigration("v3-pending-outbox", migrate: v3PendingOutbox)
        migrator.registerMigration("v4-supersedable", migrate: v4Supersedable)
        migrator.registerMigration("v5-claimant", migrate: v5Claimant)
        migrator.registerMigration("v6-checks-as-comparisons", migrate: v6ChecksAsComparisons)
        migrator.registerMigration("v7-tick-phase", migrate: v7TickPhase)
        migrator.registerMigration("v8-followers", migrate: v8Followers)
        migrator.registerMigration("v9-attempts", migrate: v9Attempts)
        migrator.registerMigration("v10-tick-events", migrate: v10TickEvents)
        migrator.registerMigration("v11-console", migrate: v11Console)
        migrator.registerMigration("v12-outbox-message", migrate: v12OutboxMessage)
        migrator.registerMigration("v13-indexes-in-write-order", migrate: v13IndexesInWriteOrder)
        migrator.registerMigration("v14-adventure-ledgers", migrate: v14AdventureLedgers)
        migrator.registerMigration("v15-pushes-through-ticks", migrate: v15PushesThroughTicks)
        migrator.registerMigration("v16-chained-ticks", migrate: v16ChainedTicks)
        migrator.registerMigration("v17-activity-changes", migrate: v17ActivityChanges)
        return migrator
    }

    /// Players, parties, tokens, adventures, their commands and events, the outbox
    /// and the push log. Instants of the game (`startedAt`, `nextTickAt`, `endedAt`,
    /// `expiration`) are unix seconds, as the game and the push policy count them;
    /// wall-clock bookkeeping (`createdAt`, `claimedAt`, …) is GRDB's datetime text.
    private static func v1(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE player (
                id TEXT PRIMARY KEY NOT NULL,
                name TEXT NOT NULL CHECK (length(name) > 0),
                apiKeyHash BLOB NOT NULL UNIQUE CHECK (length(apiKeyHash) = 32),
                createdAt DATETIME NOT NULL
            );
            CREATE TABLE playerHero (
                player TEXT NOT NULL REFERENCES player(id),
                heroID TEXT NOT NULL,
                PRIMARY KEY (player, heroID)
            ) WITHOUT ROWID;

            CREATE TABLE party (
                id TEXT PRIMARY KEY NOT NULL,
                name TEXT NOT NULL CHECK (length(name) > 0),
                inviteCode TEXT NOT NULL UNIQUE,
                createdBy TEXT NOT NULL REFERENCES player(id),
                createdAt DATETIME NOT NULL
            );
            CREATE TABLE membership (
                party TEXT NOT NULL REFERENCES party(id),
                player TEXT NOT NULL REFERENCES player(id),
                heroID TEXT NOT NULL,
                joinedAt DATETIME NOT NULL,
                PRIMARY KEY (party, player),
                UNIQUE (party, heroID)
            );
            CREATE INDEX membership_byPlayer ON membership(player);

            CREATE TABLE device (
                id TEXT PRIMARY KEY NOT NULL,
                player TEXT NOT NULL REFERENCES player(id),
                pushToStartToken TEXT,
                pushToStartTokenRegisteredAt DATETIME,
                pushToStartTokenInvalidAt DATETIME,
                pushToStartTokenInvalidReason TEXT,
                locale TEXT NOT NULL,
                updatedAt DATETIME NOT NULL
            );
            CREATE INDEX device_byPlayer ON device(player);
            CREATE INDEX device_byPushToStartToken ON device(pushToStartToken);

            CREATE TABLE adventure (
                id TEXT PRIMARY KEY NOT NULL,
                party TEXT NOT NULL REFERENCES party(id),
                routeID TEXT NOT NULL,
                contentVersion TEXT NOT NULL,
                -- UInt64 in decimal: SQLite integers are signed, and text keeps it readable.
                seed TEXT NOT NULL,
                roster TEXT NOT NULL,
                tickInterval INTEGER NOT NULL CHECK (tickInterval > 0),
                timeLimit INTEGER NOT NULL CHECK (timeLimit > 0),
                startedAt INTEGER NOT NULL,
                status TEXT NOT NULL CHECK (status IN
                    ('running', 'victory', 'defeat', 'timeLimitReached', 'endedByGameMaster')),
                state TEXT NOT NULL,
                lastTick INTEGER NOT NULL CHECK (lastTick >= 0),
                nextTickAt INTEGER,
                endedAt INTEGER,
                CHECK ((status = 'running') = (nextTickAt IS NOT NULL))
            );
            -- The schema itself refuses a second running adventure for a party.
            CREATE UNIQUE INDEX adventure_oneRunningPerParty ON adventure(party) WHERE status = 'running';
            CREATE INDEX adventure_due ON adventure(nextTickAt) WHERE status = 'running';

            CREATE TABLE command (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                adventure TEXT NOT NULL REFERENCES adventure(id),
                command TEXT NOT NULL,
                receivedAt DATETIME NOT NULL,
                tick INTEGER CHECK (tick > 0)
            );
            CREATE INDEX command_byAdventure ON command(adventure, tick);

            CREATE TABLE event (
                adventure TEXT NOT NULL REFERENCES adventure(id),
                tick INTEGER NOT NULL,
                position INTEGER NOT NULL,
                event TEXT NOT NULL,
                PRIMARY KEY (adventure, tick, position)
            ) WITHOUT ROWID;

            CREATE TABLE liveActivity (
                id TEXT PRIMARY KEY NOT NULL,
                player TEXT NOT NULL REFERENCES player(id),
                adventure TEXT NOT NULL REFERENCES adventure(id),
                heroID TEXT NOT NULL,
                frequentUpdates BOOLEAN NOT NULL,
                locale TEXT NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('active', 'ended', 'dismissed')),
                ledger TEXT NOT NULL,
                createdAt DATETIME NOT NULL
            );
            CREATE INDEX liveActivity_byAdventure ON liveActivity(adventure, status);

            CREATE TABLE activityToken (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                activity TEXT NOT NULL REFERENCES liveActivity(id),
                token TEXT NOT NULL,
                registeredAt DATETIME NOT NULL,
                invalidatedAt DATETIME,
                invalidReason TEXT,
                CHECK ((invalidatedAt IS NULL) = (invalidReason IS NULL))
            );
            -- At most one token per activity is ever the one pushes go to.
            CREATE UNIQUE INDEX activityToken_oneValid ON activityToken(activity) WHERE invalidatedAt IS NULL;
            CREATE INDEX activityToken_byToken ON activityToken(token);

            CREATE TABLE outbox (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                adventure TEXT REFERENCES adventure(id),
                targetKind TEXT NOT NULL CHECK (targetKind IN ('liveActivity', 'pushToStart', 'pushToTalk')),
                targetID TEXT NOT NULL,
                pushType TEXT NOT NULL,
                topic TEXT NOT NULL,
                priority INTEGER NOT NULL CHECK (priority IN (1, 5, 10)),
                expiration INTEGER NOT NULL CHECK (expiration >= 0),
                payload BLOB NOT NULL CHECK (length(payload) > 0),
                reason TEXT NOT NULL,
                hasAlert BOOLEAN NOT NULL,
                isEnd BOOLEAN NOT NULL,
                tick INTEGER,
                state TEXT NOT NULL CHECK (state IN
                    ('pending', 'sending', 'sent', 'failed', 'superseded', 'dropped')),
                outcome TEXT,
                attempts INTEGER NOT NULL DEFAULT 0,
                nextAttemptAt DATETIME NOT NULL,
                claimedAt DATETIME,
                createdAt DATETIME NOT NULL
            );
            CREATE INDEX outbox_due ON outbox(nextAttemptAt, id) WHERE state = 'pending';
            CREATE INDEX outbox_byTarget ON outbox(targetKind, targetID, id);
            CREATE INDEX outbox_byAdventure ON outbox(adventure, id);

            CREATE TABLE pushLog (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                outbox INTEGER NOT NULL REFERENCES outbox(id),
                adventure TEXT REFERENCES adventure(id),
                targetKind TEXT NOT NULL,
                targetID TEXT NOT NULL,
                token TEXT NOT NULL,
                pushType TEXT NOT NULL,
                priority INTEGER NOT NULL,
                status INTEGER,
                reason TEXT,
                apnsID TEXT,
                attempts INTEGER NOT NULL,
                sentAt DATETIME NOT NULL
            );
            CREATE INDEX pushLog_byAdventure ON pushLog(adventure, id);
            """)
    }

    /// Each party's walkie-talkie channel, who joined it with which ephemeral token,
    /// and the recorded messages.
    private static func v2PushToTalk(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE channel (
                id TEXT PRIMARY KEY NOT NULL,
                party TEXT NOT NULL UNIQUE REFERENCES party(id),
                createdAt DATETIME NOT NULL,
                closedAt DATETIME
            );
            CREATE TABLE channelMember (
                id TEXT PRIMARY KEY NOT NULL,
                channel TEXT NOT NULL REFERENCES channel(id),
                player TEXT NOT NULL REFERENCES player(id),
                token TEXT,
                tokenRegisteredAt DATETIME,
                tokenInvalidAt DATETIME,
                tokenInvalidReason TEXT,
                -- joined: listening; leaving: told to leave, token kept until that push is done.
                status TEXT NOT NULL CHECK (status IN ('joined', 'leaving', 'left')),
                joinedAt DATETIME NOT NULL,
                leftAt DATETIME,
                UNIQUE (channel, player)
            );
            CREATE INDEX channelMember_byToken ON channelMember(token);

            CREATE TABLE transmission (
                id TEXT PRIMARY KEY NOT NULL,
                channel TEXT NOT NULL REFERENCES channel(id),
                speaker TEXT NOT NULL REFERENCES player(id),
                heroID TEXT NOT NULL,
                contentType TEXT NOT NULL,
                durationMilliseconds INTEGER NOT NULL CHECK (durationMilliseconds > 0),
                byteCount INTEGER NOT NULL CHECK (byteCount > 0),
                -- NULL once retention has removed it; the row stays as a record.
                audio BLOB,
                createdAt DATETIME NOT NULL,
                speakingUntil DATETIME NOT NULL,
                audioDeletedAt DATETIME
            );
            CREATE INDEX transmission_byChannel ON transmission(channel, speakingUntil);
            CREATE INDEX transmission_byAge ON transmission(createdAt) WHERE audio IS NOT NULL;
            """)
    }

    /// The pushes waiting to be sent or being sent, apart from the outbox's history:
    /// claiming the next pushes, superseding an activity's older routine update,
    /// counting what a drain waits for and recovering interrupted sends read only
    /// these, however many rows were sent before. Without them, each claim walked
    /// every row ever queued.
    private static func v3PendingOutbox(_ db: Database) throws {
        try db.execute(sql: """
            CREATE INDEX outbox_pending ON outbox(id) WHERE state = 'pending';
            CREATE INDEX outbox_sending ON outbox(id) WHERE state = 'sending';
            CREATE INDEX outbox_pendingRoutine ON outbox(targetKind, targetID)
                WHERE state = 'pending' AND NOT hasAlert AND NOT isEnd;
            """)
    }

    /// Whether a newer push to the same target makes a queued one pointless is the
    /// push policy's decision, stored with the push, not a rule written in SQL.
    /// Rows from before get what the policy decided for them then: routine Live
    /// Activity updates.
    private static func v4Supersedable(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE outbox ADD COLUMN supersedable BOOLEAN NOT NULL DEFAULT 0;
            UPDATE outbox SET supersedable = 1 WHERE targetKind = 'liveActivity' AND NOT hasAlert AND NOT isEnd;
            DROP INDEX outbox_pendingRoutine;
            CREATE INDEX outbox_pendingSupersedable ON outbox(targetKind, targetID) WHERE state = 'pending' AND supersedable;
            """)
    }

    /// Which store claimed a push being sent: only that one may record its answer,
    /// and a claim by any other is one a stopped process left behind.
    private static func v5Claimant(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE outbox ADD COLUMN claimedBy TEXT")
    }

    /// A CHECK that lists allowed values with `IN (…)` makes SQLite build a
    /// temporary B-tree of the list each time a row is inserted or the column is
    /// updated: several per tick and per push (an outbox row has three such lists).
    /// The same constraints written as comparisons joined by OR cost a few
    /// comparisons. Only the constraints' text changes, and every stored row
    /// satisfies the new text exactly as it did the old, so the table definitions
    /// are rewritten in place: SQLite's documented way to change a constraint
    /// without copying a table (https://www.sqlite.org/lang_altertable.html, "Making
    /// Other Kinds Of Table Schema Changes"), instant however large the outbox is.
    private static func v6ChecksAsComparisons(_ db: Database) throws {
        let tables = try Row.fetchAll(db, sql: """
            SELECT name, sql FROM sqlite_schema WHERE type = 'table'
            AND name IN ('adventure', 'liveActivity', 'outbox', 'channelMember')
            """)
        guard tables.count == 4 else { throw StoreError.corrupt("v6: expected four tables, found \(tables.count)") }
        try db.execute(sql: "PRAGMA writable_schema = ON")
        for table in tables {
            let name: String = table["name"], definition: String = table["sql"]
            let rewritten = checksAsComparisons(definition)
            guard rewritten != definition, !rewritten.contains(" IN ") else {
                throw StoreError.corrupt("v6: the definition of \(name) is not the one the earlier migrations made")
            }
            try db.execute(sql: "UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = ?",
                           arguments: [rewritten, name])
        }
        let version = try Int.fetchOne(db, sql: "PRAGMA schema_version") ?? 0
        try db.execute(sql: "PRAGMA schema_version = \(version + 1)")
        try db.execute(sql: "PRAGMA writable_schema = OFF")
    }

    /// Each adventure's ticks fall due a fixed number of milliseconds into their
    /// second (`TickSchedule`), so that adventures do not all fall due at once;
    /// the due queue is ordered by second, then phase. Adventures from before keep
    /// phase 0: due at the start of their second, as they were.
    private static func v7TickPhase(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE adventure ADD COLUMN tickPhase INTEGER NOT NULL DEFAULT 0 CHECK (tickPhase >= 0 AND tickPhase < 1000);
            DROP INDEX adventure_due;
            CREATE INDEX adventure_due ON adventure(nextTickAt, tickPhase) WHERE status = 'running';
            """)
    }

    /// Followers of an adventure and its broadcast channels (one per language),
    /// the follow code of a followable adventure, a follower's own Live Activity
    /// (no hero) and broadcasts in the outbox. The outbox's target kind takes one
    /// more value and a Live Activity's hero may be missing: both loosen a
    /// constraint every stored row satisfies, so the two definitions are rewritten
    /// in place as in v6 (SQLite documents this for removing NOT NULL and CHECK
    /// constraints), instant however large the tables.
    private static func v8Followers(_ db: Database) throws {
        let edits = [
            ("outbox", "targetKind = 'pushToTalk')", "targetKind = 'pushToTalk' OR targetKind = 'followerChannel')"),
            ("liveActivity", "heroID TEXT NOT NULL,", "heroID TEXT,"),
        ]
        try db.execute(sql: "PRAGMA writable_schema = ON")
        for (table, old, new) in edits {
            guard let definition = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?",
                                                      arguments: [table]),
                  definition.components(separatedBy: old).count == 2
            else { throw StoreError.corrupt("v8: the definition of \(table) is not the one the earlier migrations made") }
            try db.execute(sql: "UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = ?",
                           arguments: [definition.replacingOccurrences(of: old, with: new), table])
        }
        let version = try Int.fetchOne(db, sql: "PRAGMA schema_version") ?? 0
        try db.execute(sql: "PRAGMA schema_version = \(version + 1)")
        try db.execute(sql: "PRAGMA writable_schema = OFF")
        try db.execute(sql: """
            ALTER TABLE adventure ADD COLUMN followCode TEXT;
            -- Set once a channel of the adventure opens: the ticker looks for channels
            -- only in adventures that have had one.
            ALTER TABLE adventure ADD COLUMN hasFollowerChannels BOOLEAN NOT NULL DEFAULT 0;

            CREATE TABLE follower (
                adventure TEXT NOT NULL REFERENCES adventure(id),
                player TEXT NOT NULL REFERENCES player(id),
                delivery TEXT NOT NULL CHECK (delivery = 'channel' OR delivery = 'token'),
                language TEXT NOT NULL,
                device TEXT REFERENCES device(id),
                status TEXT NOT NULL CHECK (status = 'following' OR status = 'left'),
                followedAt DATETIME NOT NULL,
                leftAt DATETIME,
                CHECK ((delivery = 'token') = (device IS NOT NULL)),
                PRIMARY KEY (adventure, player)
            ) WITHOUT ROWID;

            CREATE TABLE followerChannel (
                id TEXT PRIMARY KEY NOT NULL,
                adventure TEXT NOT NULL REFERENCES adventure(id),
                language TEXT NOT NULL,
                state TEXT NOT NULL CHECK (state = 'wanted' OR state = 'creating' OR state = 'open' OR state = 'deleted'),
                -- What APNs made (apns-channel-id); kept after the delete, for the record.
                apnsChannelID TEXT,
                storagePolicy INTEGER NOT NULL CHECK (storagePolicy = 0 OR storagePolicy = 1),
                ledger TEXT NOT NULL,
                -- Who holds the claim to make it, and which attempt that is.
                claimedBy TEXT,
                attempt INTEGER NOT NULL DEFAULT 0,
                nextAttemptAt DATETIME NOT NULL,
                note TEXT,
                createdAt DATETIME NOT NULL,
                openedAt DATETIME,
                deletedAt DATETIME,
                CHECK ((state = 'open') <= (apnsChannelID IS NOT NULL)),
                CHECK ((state = 'creating') = (claimedBy IS NOT NULL)),
                UNIQUE (adventure, language)
            );
            CREATE INDEX followerChannel_open ON followerChannel(adventure) WHERE state = 'open';
            CREATE INDEX followerChannel_unmade ON followerChannel(nextAttemptAt) WHERE state = 'wanted' OR state = 'creating';
            """)
    }

    /// `column IN ('a', 'b')` → `(column = 'a' OR column = 'b')`, for lists of
    /// literals (none of the schema's contains a comma or a parenthesis).
    static func checksAsComparisons(_ definition: String) -> String {
        let list = /(\w+)\s+IN\s*\(([^()]*)\)/
        return definition.replacing(list) { match in
            let column = match.output.1
            let values = match.output.2.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            return "(" + values.map { "\(column) = \($0)" }.joined(separator: " OR ") + ")"
        }
    }

    /// Attempts per key (a client address and what it tried) in the current fixed
    /// window, for the limits against abuse: one row per key, rewritten in place.
    /// The game master's console: its sessions, by the hash of the cookie's secret
    /// (so that any node knows them and a sign-out ends them everywhere), its
    /// audit trail, paged newest first by id, and the party directory's order.
    /// Times are unix seconds.
    private static func v11Console(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE consoleSession (
                secretHash BLOB PRIMARY KEY NOT NULL CHECK (length(secretHash) = 32),
                reference TEXT NOT NULL UNIQUE,
                csrfToken TEXT NOT NULL,
                createdAt INTEGER NOT NULL,
                expiresAt INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX consoleSession_byExpiry ON consoleSession(expiresAt);
            -- The console's party directory: by name, then id, a page at a time.
            CREATE INDEX party_byNameAndID ON party(name, id);
            -- The console's finished adventures: the latest end first.
            CREATE INDEX adventure_finished ON adventure(endedAt, id) WHERE status != 'running';
            -- The console's delivery health: the last hour's answers.
            CREATE INDEX pushLog_bySentAt ON pushLog(sentAt);
            CREATE TABLE consoleAudit (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                at INTEGER NOT NULL,
                action TEXT NOT NULL,
                session TEXT,
                client TEXT NOT NULL,
                detail TEXT NOT NULL
            );
            """)
    }

    private static func v9Attempts(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE attempt (
                key TEXT PRIMARY KEY NOT NULL,
                windowStart INTEGER NOT NULL,
                count INTEGER NOT NULL
            ) WITHOUT ROWID
            """)
    }
}
