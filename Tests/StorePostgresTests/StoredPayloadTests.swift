import Foundation
import Logging
import PostgresNIO
import Store
@testable import StorePostgres
import StoreTestSupport
import Testing
import Vocabulary

/// A push's payload is kept deflated (`StoredPayload`); one kept as JSON, as every
/// version before stored it, is claimed and logged as it is.
@Suite(.enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.skipped)), .closesStores)
struct StoredPayloadPostgresTests {
    @Test func aPayloadIsStoredDeflatedAndClaimedAndLoggedByteForByte() async throws {
        let store = try #require(try await StoreEngine.postgres.open() as? PostgresStore)
        let trio = try await Trio.make(in: store)
        let adventure = try await trio.startAdventure()
        let activities = try await trio.registerActivities(for: adventure.id)
        try await store.playNextTick(of: adventure.id) { _ in activities.map { realisticUpdate($0) } }
        let logger = Logger(label: "tests.stored-payload")
        let stored = try await store.query(PostgresQuery(unsafeSQL: "SELECT id, payload FROM outbox_message ORDER BY id"),
                                           logger: logger).decodeAll((Int64, Data).self)
        #expect(stored.count == activities.count)
        for (_, payload) in stored.dropLast() {
            #expect(payload.first == 0x01)
            #expect(payload.count * 4 < realisticUpdate(activities[0]).payload.count)
        }
        // The last push as a version before this one would have stored it.
        let old = Data(#"{"aps":{"event":"update","timestamp":1}}"#.utf8)
        try await store.query("UPDATE outbox_message SET payload = \(ByteBuffer(bytes: old)) WHERE id = \(stored.last!.0)",
                              logger: logger)
        let sent = activities.map { realisticUpdate($0).payload }.dropLast() + [old]

        let claimed = try await store.claimOutbox(limit: 10)
        #expect(claimed.sorted { $0.id.rawValue < $1.id.rawValue }.map(\.message.payload) == Array(sent))
        _ = try await store.record(claimed.map { PushResult($0, .delivered(apnsID: "\($0.id.rawValue)")) })
        #expect(try await store.pushLog(of: adventure.id).map(\.payload) == Array(sent))
        #expect(try await store.outbox(of: adventure.id).map(\.message.payload) == Array(sent))
    }
}
