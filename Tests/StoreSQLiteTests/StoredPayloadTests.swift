import Foundation
import GRDB
import Store
@testable import StoreSQLite
import StoreTestSupport
import Testing
import Vocabulary

/// A push's payload is kept deflated (`StoredPayload`); one kept as JSON, as every
/// version before stored it, is claimed and logged as it is.
@Suite struct StoredPayloadSQLiteTests {
    @Test func aPayloadIsStoredDeflatedAndClaimedAndLoggedByteForByte() async throws {
        let scratch = try ScratchDatabase()
        let store = try scratch.open()
        let trio = try await Trio.make(in: store)
        let adventure = try await trio.startAdventure()
        let activities = try await trio.registerActivities(for: adventure.id)
        try await store.playNextTick(of: adventure.id) { _ in activities.map { realisticUpdate($0) } }
        let old = Data(#"{"aps":{"event":"update","timestamp":1}}"#.utf8)
        let stored = try await store.rawWrite { db in
            let rows = try Row.fetchAll(db, sql: "SELECT id, payload FROM outboxMessage ORDER BY id")
                .map { (id: $0["id"] as Int64, payload: $0["payload"] as Data) }
            // The last push as a version before this one would have stored it.
            try db.execute(sql: "UPDATE outboxMessage SET payload = ? WHERE id = ?", arguments: [old, rows.last!.id])
            return rows
        }
        #expect(stored.count == activities.count)
        for row in stored.dropLast() {
            #expect(row.payload.first == 0x01)
            #expect(row.payload.count * 4 < realisticUpdate(activities[0]).payload.count)
        }
        let sent = activities.map { realisticUpdate($0).payload }.dropLast() + [old]

        let claimed = try await store.claimOutbox(limit: 10)
        #expect(claimed.map(\.message.payload) == Array(sent))
        _ = try await store.record(claimed.map { PushResult($0, .delivered(apnsID: "\($0.id.rawValue)")) })
        #expect(try await store.pushLog(of: adventure.id).map(\.payload) == Array(sent))
        #expect(try await store.outbox(of: adventure.id).map(\.message.payload) == Array(sent))
    }
}
