import Foundation
import Game
import GRDB
import Store
@testable import StoreSQLite
import StoreTestSupport
import Testing
import Vocabulary

@Suite struct SchemaTests {
    private static let everyMigration = [
        "v1", "v2-push-to-talk", "v3-pending-outbox", "v4-supersedable", "v5-claimant", "v6-checks-as-comparisons", "v7-tick-phase",
        "v8-followers", "v9-attempts", "v10-tick-events", "v11-console", "v12-outbox-message", "v13-indexes-in-write-order",
        "v14-adventure-ledgers", "v15-pushes-through-ticks", "v16-chained-ticks", "v17-activity-changes",
    ]

    @Test func aNewFileGetsEveryMigrationWithWALAndForeignKeys() async throws {
        let scratch = try ScratchDatabase()
        let store = try scratch.open()
        #expect(try await store.appliedMigrations() == Self.everyMigration)
        #expect(FileManager.default.fileExists(atPath: scratch.path))
        let (journal, foreignKeys, pageSize) = try await store.rawRead { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Bool.fetchOne(db, sql: "PRAGMA foreign_keys"),
             try Int.fetchOne(db, sql: "PRAGMA page_size"))
        }
        #expect(journal == "wal")
        #expect(foreignKeys == true)
        #expect(pageSize == 2048, "a new file's pages are 2 KiB: a tick's WAL goes with the page size")
    }

    @Test func reopeningAFileKeepsEverythingAndRunsNoMigrationAgain() async throws {
        let scratch = try ScratchDatabase()
        var adventureID: AdventureID?
        var key = ""
        var partyID: PartyID?
        do {
            let store = try scratch.open()
            let trio = try await Trio.make(in: store)
            let adventure = try await trio.startAdventure()
            try await trio.registerActivities(for: adventure.id)
            try await store.playNextTick(of: adventure.id)
            adventureID = adventure.id
            key = trio.keys[1]
            partyID = trio.party.id
        }
        let reopened = try scratch.open()
        #expect(try await reopened.appliedMigrations() == Self.everyMigration)
        let player = try #require(try await reopened.player(authenticatedBy: key))
        #expect(player.name == "Bao")
        #expect(try await reopened.members(of: try #require(partyID)).count == 3)
        let adventure = try await reopened.adventure(try #require(adventureID))
        #expect(adventure.lastTick == 1)
        #expect(try await reopened.events(of: adventure.id).isEmpty == false)
        #expect(try await reopened.recipients(of: adventure.id).count == 3)
    }

    @Test func aFileFromAnOlderVersionIsMigratedForward() async throws {
        let scratch = try ScratchDatabase()
        // A file made before channels existed: only "v1" has run.
        do {
            let queue = try DatabaseQueue(path: scratch.path)
            try Schema.migrator.migrate(queue, upTo: "v1")
            try await queue.write { db in
                try db.execute(sql: """
                    INSERT INTO player (id, name, apiKeyHash, createdAt) VALUES ('p1', 'Old', zeroblob(32), '2025-01-01 00:00:00.000');
                    INSERT INTO party (id, name, inviteCode, createdBy, createdAt)
                    VALUES ('party-1', 'Old party', 'ABCDEFGH', 'p1', '2025-01-01 00:00:00.000');
                    """)
            }
        }
        let store = try scratch.open()
        #expect(try await store.appliedMigrations() == Self.everyMigration)
        #expect(try await store.party("party-1").name == "Old party")
        #expect(try await store.rawRead { try Int.fetchOne($0, sql: "PRAGMA page_size") } == 4096,
                "an existing file keeps its pages")
        // The party predates channels; it gets one when first asked, and keeps it.
        let channel = try await store.channel(of: "party-1")
        #expect(try await store.channel(of: "party-1").id == channel.id)
    }

    /// Writing a column whose CHECK lists its allowed values must not make SQLite
    /// build a temporary B-tree of the list (it did for every push and tick before
    /// v6), and the constraints must refuse what they refused before, in a file
    /// migrated from v5 with rows in it.
    @Test func listedValuesAreCheckedByComparisonsAfterV6() async throws {
        let scratch = try ScratchDatabase()
        // Rows as v5 wrote them: an adventure and a Live Activity of a party's member.
        do {
            let store = try scratch.open(upTo: "v5-claimant")
            let trio = try await Trio.make(in: store)
            try await store.rawWrite { [party = trio.party.id.rawValue, player = trio.players[0].id.rawValue] db in
                try db.execute(sql: """
                    INSERT INTO adventure (id, party, routeID, contentVersion, seed, roster, tickInterval, timeLimit, startedAt,
                                           status, state, lastTick, nextTickAt)
                    VALUES ('old-adventure', ?, 'route', 'content', '7', '[]', 1, 3600, 1000, 'running', '{}', 0, 1001);
                    INSERT INTO liveActivity (id, player, adventure, heroID, frequentUpdates, locale, status, ledger, createdAt)
                    VALUES ('old-activity', ?, 'old-adventure', 'power-panda', 0, 'en', 'active', '{}', '2025-01-01 00:00:00.000');
                    """, arguments: [party, player])
            }
        }
        let store = try scratch.open()
        // A push and a channel member, written after v6 with allowed values (a push
        // is two rows since v12: its progress and its message).
        try await store.rawWrite { db in
            try SQLiteStore.enqueue(OutboxMessage(target: .liveActivity("a"), pushType: .liveactivity, topic: "t", priority: .low,
                                                  expiration: 0, payload: Data("{}".utf8), reason: "r", hasAlert: false,
                                                  isEnd: false, supersedable: false),
                                    adventure: nil, tick: nil, at: Date().databaseValue, db)
        }
        let party = try #require(try await store.rawRead { try String.fetchOne($0, sql: "SELECT id FROM party") })
        let player = try #require(try await store.rawRead { try String.fetchOne($0, sql: "SELECT id FROM player") })
        _ = try await store.joinChannel(try await store.channel(of: PartyID(party)).id, player: PlayerID(player),
                                        token: try PushToken(hex: String(repeating: "ab", count: 32)))
        let writes = [
            "UPDATE adventure SET status = ? WHERE id = ?",
            "UPDATE liveActivity SET status = ? WHERE id = ?",
            "UPDATE channelMember SET status = ? WHERE id = ?",
            "UPDATE outbox SET state = ?, targetKind = ? WHERE id = ?",
            "UPDATE outboxMessage SET priority = ?, targetKind = ? WHERE id = ?",
            "INSERT INTO outbox (targetKind, targetID, supersedable, state, attempts, nextAttemptAt) VALUES (?, 'a', 0, ?, 0, ?)",
            """
            INSERT INTO outboxMessage (id, targetKind, targetID, pushType, topic, priority, expiration, payload, reason, hasAlert,
                                       isEnd, createdAt)
            VALUES (?, ?, 'a', 'liveactivity', 't', ?, 0, x'7b7d', 'r', 0, 0, '2025-01-01 00:00:00.000')
            """,
        ]
        // On the writer: SQLite leaves constraint checks out of a read-only connection's programs.
        let temporaryTables = try await store.rawWrite { db in
            try writes.map { sql in
                let parameters = StatementArguments(Array(repeating: nil, count: sql.filter { $0 == "?" }.count))
                return try Row.fetchAll(db, sql: "EXPLAIN " + sql, arguments: parameters)
                    .filter { ($0["opcode"] as String) == "OpenEphemeral" }.count
            }
        }
        #expect(temporaryTables == [0, 0, 0, 0, 0, 0, 0])

        let refused: [(String, StatementArguments)] = [
            ("UPDATE adventure SET status = ?", ["paused"]),
            ("UPDATE liveActivity SET status = ?", ["asleep"]),
            ("UPDATE outbox SET state = ?", ["lost"]),
            ("UPDATE outbox SET targetKind = ?", ["email"]),
            ("UPDATE outboxMessage SET priority = ?", [7]),
            ("UPDATE outboxMessage SET targetKind = ?", ["email"]),
        ]
        for (sql, arguments) in refused {
            await #expect(throws: DatabaseError.self, "\(sql) \(arguments)") {
                try await store.rawWrite { db in try db.execute(sql: sql, arguments: arguments) }
            }
        }
        await #expect(throws: DatabaseError.self) {
            try await store.rawWrite { db in try db.execute(sql: "UPDATE channelMember SET status = 'away'") }
        }
        // What was allowed still is, and the rows written before v6 are all there.
        try await store.rawWrite { db in
            try db.execute(sql: "UPDATE outbox SET state = 'dropped', targetKind = 'pushToTalk'")
            try db.execute(sql: "UPDATE outboxMessage SET priority = 10, targetKind = 'pushToTalk'")
            try db.execute(sql: "UPDATE channelMember SET status = 'leaving'")
        }
        #expect(try await store.rawRead { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM adventure JOIN liveActivity") } == 1)
        #expect(try await store.rawRead { try String.fetchOne($0, sql: "PRAGMA integrity_check") } == "ok")
    }

    /// v8 loosens two constraints in place: the outbox takes broadcasts to followers'
    /// channels and a Live Activity may have no hero (a follower's). What was
    /// stored before is all there and reads back; what was refused still is.
    @Test func v8LetsBroadcastsAndFollowersActivitiesInAndKeepsEverythingElse() async throws {
        let scratch = try ScratchDatabase()
        var adventure: StoredAdventure?
        do {
            let store = try scratch.open(upTo: "v7-tick-phase")
            let trio = try await Trio.make(in: store)
            // The adventure as v7 stored it (today's insert names v8's follow code).
            let game = try trio.game()
            let id = AdventureID("old-adventure")
            try await store.rawWrite { db in
                try db.execute(sql: """
                    INSERT INTO adventure (id, party, routeID, contentVersion, seed, roster, tickInterval, timeLimit, startedAt,
                                           tickPhase, status, state, lastTick, nextTickAt)
                    VALUES (?, ?, ?, 'content-test', ?, ?, ?, ?, 1000, 0, 'running', ?, 0, ?)
                    """, arguments: [
                        id.rawValue, trio.party.id.rawValue, game.setup.route.rawValue, String(game.setup.seed),
                        try RosterJSON.text(of: game.setup.party), game.setup.tickInterval, game.setup.timeLimit,
                        try CanonicalJSON.text(of: game.start()), 1000 + game.setup.tickInterval,
                    ])
            }
            adventure = try await store.adventure(id)
            let activities = try await trio.registerActivitiesBeforeV14(for: id, in: store)
            // A tick's pushes as v7 queued them (a tick itself now writes v10's table of
            // events, and a push v12's two rows).
            try await store.rawWrite { db in
                for activity in activities {
                    try db.execute(sql: """
                        INSERT INTO outbox (adventure, targetKind, targetID, pushType, topic, priority, expiration, payload, reason,
                                            hasAlert, isEnd, supersedable, tick, state, attempts, nextAttemptAt, createdAt)
                        VALUES (?, 'liveActivity', ?, 'liveactivity', 't', 5, 4000000000, x'7b7d', 'routine', 0, 0, 1, 1,
                                'pending', 0, '2025-01-01 00:00:00.000', '2025-01-01 00:00:00.000')
                        """, arguments: [id.rawValue, activity.rawValue])
                }
            }
            await #expect(throws: DatabaseError.self) {
                try await store.rawWrite { db in try db.execute(sql: "UPDATE outbox SET targetKind = 'followerChannel'") }
            }
        }
        let store = try scratch.open()
        let id = try #require(adventure?.id)
        #expect(try await store.outbox(of: id).count == 3)
        #expect(try await store.recipients(of: id).count == 3)
        #expect(try await store.adventure(id).followCode == nil)
        try await store.rawWrite { db in
            try db.execute(sql: "UPDATE outbox SET targetKind = 'followerChannel' WHERE id = (SELECT MIN(id) FROM outbox)")
            try db.execute(sql: "UPDATE outboxMessage SET targetKind = 'followerChannel' WHERE id = (SELECT MIN(id) FROM outbox)")
            try db.execute(sql: "UPDATE liveActivity SET heroID = NULL WHERE rowid = (SELECT MIN(rowid) FROM liveActivity)")
        }
        #expect(try await store.recipients(of: id).count == 2, "a heroless activity is a follower's")
        #expect(try await store.tickInputs(of: id).followers.activities.count == 1)
        await #expect(throws: DatabaseError.self) {
            try await store.rawWrite { db in try db.execute(sql: "UPDATE outbox SET targetKind = 'email'") }
        }
        await #expect(throws: DatabaseError.self) {
            try await store.rawWrite { db in try db.execute(sql: "UPDATE outboxMessage SET targetKind = 'email'") }
        }
        await #expect(throws: DatabaseError.self) {
            try await store.rawWrite { db in try db.execute(sql: "UPDATE liveActivity SET player = NULL") }
        }
        #expect(try await store.rawRead { try String.fetchOne($0, sql: "PRAGMA integrity_check") } == "ok")
    }

    /// A file from before v10 had a row per event; v10 carries every event over,
    /// in order and byte for byte, into a row per tick.
    @Test func v10KeepsEveryEventInOrder() async throws {
        let scratch = try ScratchDatabase()
        let id: AdventureID
        // Ticks 1 and 3 as v9 stored them, inserted out of order; tick 2 had no events.
        let stored = [(3, 0, #"{"type":"bossEnraged"}"#), (1, 1, #"{"b":2}"#), (1, 0, #"{"a":1}"#), (1, 2, #"{"c":"x\ny"}"#)]
        do {
            let store = try scratch.open(upTo: "v9-attempts")
            id = try await Trio.make(in: store).startAdventure().id
            try await store.rawWrite { db in
                for (tick, position, event) in stored {
                    try db.execute(sql: "INSERT INTO event (adventure, tick, position, event) VALUES (?, ?, ?, ?)",
                                   arguments: [id.rawValue, tick, position, event])
                }
            }
        }
        let store = try scratch.open()
        let texts = try await store.record(of: id, includingOutbox: false).events
        #expect(texts == [LoggedEventText(tick: 1, json: #"{"a":1}"#), LoggedEventText(tick: 1, json: #"{"b":2}"#),
                          LoggedEventText(tick: 1, json: #"{"c":"x\ny"}"#), LoggedEventText(tick: 3, json: #"{"type":"bossEnraged"}"#)])
        #expect(try await store.rawRead { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM tickEvents") } == 2)
        #expect(try await store.rawRead { try Bool.fetchOne($0, sql: "SELECT 1 FROM sqlite_schema WHERE name = 'event'") } == nil)
    }

    @Test func aListOfValuesBecomesComparisons() {
        #expect(Schema.checksAsComparisons("s TEXT CHECK (s IN\n    ('a', 'b')), p INTEGER CHECK (p IN (1, 5, 10))")
                == "s TEXT CHECK ((s = 'a' OR s = 'b')), p INTEGER CHECK ((p = 1 OR p = 5 OR p = 10))")
    }
}

@Suite struct PlayerTests {
    @Test func theAPIKeyIsStoredOnlyAsItsHashAndAuthenticates() async throws {
        let scratch = try ScratchDatabase()
        let store = try scratch.open()
        let (player, key) = try await store.createPlayer(name: "  Ana  ")
        #expect(player.name == "Ana")
        #expect(key.hasPrefix("rk_") && key.count == 46)

        let stored = try await store.rawRead { db in
            try Data.fetchOne(db, sql: "SELECT apiKeyHash FROM player WHERE id = ?", arguments: [player.id.rawValue])
        }
        #expect(stored == APIKey.hash(key))
        // Nowhere in the database file or its WAL is the key itself.
        for file in [scratch.path, scratch.path + "-wal"] where FileManager.default.fileExists(atPath: file) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            #expect(bytes.range(of: Data(key.utf8)) == nil, "the key must not be in \(file)")
            #expect(bytes.range(of: Data(key.dropFirst(3).prefix(20).utf8)) == nil)
        }

        #expect(try await store.player(authenticatedBy: key)?.id == player.id)
        var altered = Array(key)
        altered[10] = altered[10] == "A" ? "B" : "A"
        #expect(try await store.player(authenticatedBy: String(altered)) == nil)
        #expect(try await store.player(authenticatedBy: "") == nil)
        #expect(try await store.player(authenticatedBy: String(key.dropLast())) == nil)
        #expect(try await store.player(authenticatedBy: "Bearer " + key) == nil)
    }

    @Test func twoPlayersGetDifferentKeys() async throws {
        let store = try ScratchDatabase().open()
        let first = try await store.createPlayer(name: "A").apiKey
        let second = try await store.createPlayer(name: "B").apiKey
        #expect(first != second)
    }

    @Test func badNamesAreRefusedAndNothingIsStored() async throws {
        let store = try ScratchDatabase().open()
        for name in ["", "   ", String(repeating: "x", count: 65), "tab\there"] {
            await #expect(throws: StoreError.self) { try await store.createPlayer(name: name) }
        }
        #expect(try await store.rawRead { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM player") } == 0)
    }

    @Test func pickingHeroesReplacesTheChoiceButKeepsHeroesInUse() async throws {
        let store = try ScratchDatabase().open()
        let trio = try await Trio.make(in: store)
        let ana = trio.players[0].id
        try await store.pickHeroes(["power-panda", "egghead", "egghead"], for: ana)
        #expect(try await store.heroes(of: ana) == ["egghead", "power-panda"])
        await #expect(throws: StoreError.conflict(
            "hero 'power-panda' plays in one of your parties; leave it before dropping the hero")) {
            try await store.pickHeroes(["egghead"], for: ana)
        }
        #expect(try await store.heroes(of: ana) == ["egghead", "power-panda"])
        await #expect(throws: StoreError.notFound("player", id: "nobody")) {
            try await store.pickHeroes(["egghead"], for: "nobody")
        }
    }

    /// Before v4 the store itself decided that a pending routine Live Activity
    /// update (no alert, not an end) gives way to a newer push; v4 stores the
    /// policy's decision with each push. Rows queued before keep what the old rule
    /// said of them.
    @Test func pushesQueuedBeforeTheSupersedableColumnKeepTheirFate() async throws {
        let scratch = try ScratchDatabase()
        do {
            let queue = try DatabaseQueue(path: scratch.path)
            try Schema.migrator.migrate(queue, upTo: "v3-pending-outbox")
            try await queue.write { db in
                for (target, kind, hasAlert, isEnd) in [("a1", "liveActivity", false, false), ("a1", "liveActivity", true, false),
                                                        ("a1", "liveActivity", false, true), ("m1", "pushToTalk", false, false)] {
                    try db.execute(sql: """
                        INSERT INTO outbox (targetKind, targetID, pushType, topic, priority, expiration, payload, reason,
                                            hasAlert, isEnd, state, attempts, nextAttemptAt, createdAt)
                        VALUES (?, ?, 'liveactivity', 't', 5, 0, x'7b7d', 'r', ?, ?, 'pending', 0, '2025-01-01 00:00:00.000',
                                '2025-01-01 00:00:00.000')
                        """, arguments: [kind, target, hasAlert, isEnd])
                }
            }
        }
        let store = try scratch.open()
        let flags = try await store.rawRead { db in try Bool.fetchAll(db, sql: "SELECT supersedable FROM outbox ORDER BY id") }
        #expect(flags == [true, false, false, false])
    }
}
