import Foundation
import Logging
import PostgresNIO
import Store
@testable import StorePostgres
import StoreTestSupport
import Testing
import Vocabulary

/// v23: a push's topic is a code, its target's kind and push type are enums, its
/// log entry's token is bytes and APNs' id a `uuid` where it is one. A database
/// from before keeps every push and answer as they read, and what is not a
/// canonical id or lowercase hex is kept as it came, or stops the migration.
@Suite(.enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.skipped)))
struct PushColumnsAsCodesTests {
    @Test func v23KeepsEveryPushAndAnswerAsTheyRead() async throws {
        let location = try await PostgresTestServer.shared.freshDatabase()
        let store = try await PostgresStore.open(location)
        let uuid = "0f9a1c2e-5b6d-4e7f-8a9b-0c1d2e3f4a5b"
        let (id, outbox, log) = try await closing(store) {
            let trio = try await Trio.make(in: store)
            let adventure = try await trio.startAdventure(followCode: FollowCode(typed: "FLWR-CDE2"))
            let watchers = try await Watchers.make(1, in: store)
            guard case .create(let creation)? = try await store.follow(.channel(adventure, player: watchers.players[0].id),
                                                                         at: Date()).channel
            else { throw StoreError.corrupt("no channel to create") }
            try await store.channelCreated(creation, as: "Zmlyc3Q=", at: Date())
            let activities = try await trio.registerActivities(for: adventure.id)
            var ptt = update(activities[0], tick: 1, alert: true)
            ptt.topic = "app.rangers.voip-ptt"  // a second topic
            try await store.playNextTick(of: adventure.id) { _ in
                activities.map { update($0, tick: 1, alert: true) } + [broadcast(creation.channel, tick: 1), ptt]
            }
            let claimed = try await store.claimOutbox(limit: 10)
            #expect(claimed.count == 5)
            let answers = ["\(uuid)", uuid.uppercased(), "a-1", "00000000-0000-0000-0000-000000000000"]
            for (push, apnsID) in zip(claimed, answers) { try await store.recordDelivered(push, apnsID: apnsID) }
            try await store.record(.rejected(status: 400, reason: "BadDeviceToken"), for: claimed[4])
            try await store.playNextTick(of: adventure.id) { _ in [update(activities[0], tick: 2)] }
            let outbox = try await store.outbox(of: adventure.id)
            let log = try await store.pushLog(of: adventure.id)
            #expect(log.map(\.apnsID) == answers + [nil])
            #expect(log.map(\.destination).contains(.channel("Zmlyc3Q=")))
            #expect(Set(outbox.map(\.message.topic)) == ["app.rangers.push-type.liveactivity", "app.rangers.voip-ptt"])
            try await store.putPushColumnsBackAsV22Left()
            return (adventure.id, outbox, log)
        }
        let reopened = try await PostgresStore.open(location)
        try await closing(reopened) {
            #expect(try await reopened.appliedMigrations().suffix(5) == ["v23-push-columns-as-codes", "v24-ids-compared-as-bytes",
                                                                         "v25-ids-as-codes-in-the-logs", "v26-outbox-holds-unfinished-pushes",
                                                                         "v27-pushes-claimed-in-commit-order"])
            #expect(try await reopened.outbox(of: id) == outbox)
            #expect(try await reopened.pushLog(of: id) == log)
            let logger = Logger(label: "tests.migration")
            let types = try await reopened.query("""
                SELECT table_name || '.' || column_name || ' ' || udt_name FROM information_schema.columns
                WHERE table_name IN ('outbox_message', 'push_log')
                  AND column_name IN ('topic_code', 'target_kind', 'push_type', 'token', 'apns_id', 'apns_id_not_uuid')
                ORDER BY 1
                """, logger: logger).decodeAll(String.self)
            #expect(types == ["outbox_message.push_type apns_push_type", "outbox_message.target_kind push_target_kind",
                              "outbox_message.topic_code int4", "push_log.apns_id uuid", "push_log.apns_id_not_uuid text",
                              "push_log.token bytea"])
            // Only a canonical lowercase id is a uuid; the others are kept as they came.
            let kept = try await reopened.query("""
                SELECT apns_id_not_uuid FROM push_log WHERE apns_id IS NULL AND apns_id_not_uuid IS NOT NULL ORDER BY id
                """, logger: logger).decodeAll(String.self)
            #expect(kept == [uuid.uppercased(), "a-1"])
            #expect(try await reopened.query("SELECT count(*) FROM push_topic", logger: logger).decodeOne(Int.self) == 2)
        }
    }

    /// A device token in the log that `encode(…, 'hex')` would not give back as it
    /// is stops the migration, and nothing is changed.
    @Test func v23RefusesADeviceTokenThatIsNotLowercaseHex() async throws {
        let location = try await PostgresTestServer.shared.freshDatabase()
        let store = try await PostgresStore.open(location)
        let logger = Logger(label: "tests.migration")
        try await closing(store) {
            let trio = try await Trio.make(in: store)
            let adventure = try await trio.startAdventure()
            let activity = try await trio.registerActivities(for: adventure.id)[0]
            try await store.playNextTick(of: adventure.id) { _ in [update(activity, tick: 1, alert: true)] }
            try await store.recordDelivered(try #require(try await store.claimOutbox(limit: 1).first), apnsID: "a-1")
            try await store.putPushColumnsBackAsV22Left()
            _ = try await store.query("UPDATE push_log SET token = 'not-hex'", logger: logger)
        }
        await #expect { try await PostgresStore.open(location) } throws: { error in
            "\(error)".contains("a push log entry has no push, or names a device token that is not lowercase hex")
        }
        let left = try await rawRows(in: location, """
            SELECT data_type FROM information_schema.columns WHERE table_name = 'push_log' AND column_name = 'token'
            """)
        #expect(left == [["text"]])
    }

    /// Every push type the server knows has its value in the schema's enum: a
    /// push type added without the migration that adds its value fails here.
    @Test func everyPushTypeHasItsValueInTheSchema() async throws {
        let store = try await PostgresStore.open(try await PostgresTestServer.shared.freshDatabase())
        try await closing(store) {
            let values = try await store.query("SELECT unnest(enum_range(NULL::apns_push_type))::text",
                                               logger: Logger(label: "tests")).decodeAll(String.self)
            #expect(values == PushType.allCases.map(\.rawValue))
        }
    }

    /// A topic's code is remembered only once it was read as committed: one
    /// registered in a transaction that rolled back is registered again.
    @Test func aTopicRegisteredInATransactionThatRolledBackIsNotRemembered() async throws {
        let store = try await PostgresStore.open(try await PostgresTestServer.shared.freshDatabase())
        try await closing(store) {
            struct RolledBack: Error {}
            let topic: Topic = "app.rangers.voip-ptt"
            await #expect(throws: RolledBack.self) {
                try await store.transaction { connection in
                    #expect(try await store.topicCodes(of: [topic], connection).count == 1)
                    throw RolledBack()
                }
            }
            #expect(store.topicCodeCache.withLockedValue { $0.byTopic[topic] } == nil)
            let code = try await store.transaction { try await store.topicCodes(of: [topic, topic], $0) }
            #expect(code.count == 2 && code[0] == code[1])
            #expect(store.topicCodeCache.withLockedValue { $0.byTopic[topic] } == nil, "registered here, not yet read as committed")
            let again = try await store.transaction { try await store.topicCodes(of: [topic], $0) }
            #expect(again == [code[0]])
            #expect(store.topicCodeCache.withLockedValue { $0.byTopic[topic] } == code[0])
        }
    }

    /// Two nodes that meet a new topic at once get one code for it.
    @Test func twoNodesMeetingANewTopicAtOnceGetOneCode() async throws {
        let location = try await PostgresTestServer.shared.freshDatabase()
        let a = try await PostgresStore.open(location), b = try await PostgresStore.open(location)
        let topics: [Topic] = (0..<20).map { Topic(rawValue: "app.rangers.\($0).voip-ptt") }
        async let fromA = a.transaction { try await a.topicCodes(of: topics, $0) }
        async let fromB = b.transaction { try await b.topicCodes(of: topics.reversed(), $0) }
        let (codesA, codesB) = try await (fromA, fromB)
        await a.close()
        await b.close()
        #expect(codesA == codesB.reversed())
        #expect(Set(codesA).count == topics.count)
    }
}

/// What is written as bytes or a `uuid` is only what PostgreSQL reads back as it came.
struct PushColumnEncodingTests {
    @Test func onlyACanonicalLowercaseUUIDIsStoredAsOne() {
        let id = "0f9a1c2e-5b6d-4e7f-8a9b-0c1d2e3f4a5b"
        #expect(PostgresStore.storedAPNsID(id) == (UUID(uuidString: id)!, ""))
        for other in [id.uppercased(), "{\(id)}", String(id.dropLast()), id.replacingOccurrences(of: "-", with: ""),
                      "0f9a1c2e-5b6d-4e7f-8a9b-0c1d2e3f4a5g", "0f9a1c2e-5b6d-4e7f-8a9b0-c1d2e3f4a5b",
                      "00000000-0000-0000-0000-000000000000", "a-1", ""] {
            #expect(PostgresStore.storedAPNsID(other) == (PostgresStore.noUUID, other), "\(other)")
        }
        #expect(PostgresStore.storedAPNsID(nil) == (PostgresStore.noUUID, ""))
    }

    @Test func aTokenIsItsBytesOnlyWhenItIsLowercaseHex() throws {
        #expect(PostgresStore.lowercaseHexBytes("00ff7a") == [0x00, 0xff, 0x7a])
        #expect(PostgresStore.lowercaseHexBytes("") == [])
        for other in ["00FF", "0ff", "zz", "0g"] { #expect(PostgresStore.lowercaseHexBytes(other) == nil, "\(other)") }
        #expect(try PostgresStore.storedDestination(.channel("Zmlyc3Q=")) == ByteBuffer(string: "Zmlyc3Q="))
        #expect(throws: StoreError.corrupt("a push's token that is not lowercase hex")) {
            try PostgresStore.storedDestination(.device(PushToken(stored: "ABCD")))
        }
    }
}

extension PostgresStore {
    /// Puts the messages' and the push log's columns back as v22 left them (text
    /// topic, kinds, token and APNs id), and v23, v24 and v25 as not applied: what
    /// the migration tests of the migrations before it start from (v24 and v25
    /// after v23, which makes the two tables again).
    func putPushColumnsBackAsV22Left() async throws {
        try await putIdsBackAsV24Left()
        try await runStatements([
            "ALTER TABLE outbox_message ADD COLUMN topic TEXT",
            "UPDATE outbox_message m SET topic = t.topic FROM push_topic t WHERE t.code = m.topic_code",
            """
            ALTER TABLE outbox_message ALTER COLUMN topic SET NOT NULL, DROP COLUMN topic_code,
                ALTER COLUMN target_kind TYPE TEXT USING target_kind::text, ALTER COLUMN push_type TYPE TEXT USING push_type::text,
                ADD CHECK (target_kind IN ('liveActivity', 'pushToStart', 'pushToTalk', 'followerChannel'))
            """,
            "ALTER TABLE push_log ADD COLUMN token_text TEXT, ADD COLUMN apns_id_text TEXT",
            """
            UPDATE push_log l SET apns_id_text = COALESCE(l.apns_id::text, l.apns_id_not_uuid),
                token_text = CASE WHEN m.target_kind = 'followerChannel' THEN convert_from(l.token, 'UTF8')
                                  ELSE encode(l.token, 'hex') END
            FROM outbox_message m WHERE m.id = l.outbox
            """,
            "ALTER TABLE push_log DROP COLUMN token, DROP COLUMN apns_id, DROP COLUMN apns_id_not_uuid",
            "ALTER TABLE push_log RENAME COLUMN token_text TO token",
            "ALTER TABLE push_log RENAME COLUMN apns_id_text TO apns_id",
            "ALTER TABLE push_log ALTER COLUMN token SET NOT NULL",
            "DROP TABLE push_topic",
            "DROP TYPE push_target_kind",
            "DROP TYPE apns_push_type",
            "DELETE FROM schema_migration WHERE name IN ('v23-push-columns-as-codes', 'v24-ids-compared-as-bytes')",
        ])
    }
}
