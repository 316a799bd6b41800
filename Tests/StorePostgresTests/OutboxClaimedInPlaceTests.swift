import Foundation
import Logging
import PostgresNIO
import Store
@testable import StorePostgres
import StoreTestSupport
import Testing
import Vocabulary

/// v22: a push's progress row no longer keeps its target, and one index lists
/// the pushes not finished. A database from before keeps every push as it was,
/// and its pushes are claimed, superseded and counted as before.
@Suite(.enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.skipped)))
struct OutboxClaimedInPlaceTests {
    @Test func v22KeepsEveryPushAndItsProgress() async throws {
        let location = try await PostgresTestServer.shared.freshDatabase()
        let store = try await PostgresStore.open(location)
        let (id, activities, before) = try await closing(store) {
            let trio = try await Trio.make(in: store)
            let adventure = try await trio.startAdventure()
            let activities = try await trio.registerActivities(for: adventure.id)
            try await store.playNextTick(of: adventure.id) { _ in activities.map { update($0, tick: 1, alert: true) } }
            let sent = try await store.claimOutbox(limit: 1)
            #expect(try await store.record(sent.map { PushResult($0, .delivered(apnsID: "a-1")) }) == [nil])
            _ = try await store.claimOutbox(limit: 1) // left being sent
            // A routine push superseded by the next one to its activity, which waits.
            try await store.playNextTick(of: adventure.id) { _ in [update(activities[0], tick: 2)] }
            try await store.playNextTick(of: adventure.id) { _ in [update(activities[0], tick: 3)] }
            let before = try await store.outbox(of: adventure.id)
            #expect(Set(before.map(\.state)) == [.sent, .sending, .pending, .superseded], "\(before.map(\.state))")
            try await store.putOutboxBackAsV21Left()
            return (adventure.id, activities, before)
        }
        let reopened = try await PostgresStore.open(location)
        try await closing(reopened) {
            #expect(try await reopened.appliedMigrations().suffix(3) == ["v22-outbox-claimed-in-place", "v26-outbox-holds-unfinished-pushes",
                                                                         "v27-pushes-claimed-in-commit-order"])
            #expect(try await reopened.outbox(of: id) == before)
            #expect(try await reopened.pendingOutboxCount() == before.filter { [.pending, .sending].contains($0.state) }.count)
            // The routine push waiting is superseded by a newer one, found through its message's target.
            try await reopened.playNextTick(of: id) { _ in [update(activities[0], tick: 4)] }
            let after = try await reopened.outbox(of: id)
            let waiting = try #require(before.last)
            #expect(after.first { $0.id == waiting.id }?.state == .superseded)
            // What waits is claimed, the oldest first; what is being sent is not claimed again.
            let expected = after.filter { $0.state == .pending }.map(\.id)
            #expect(try await reopened.claimOutbox(limit: 10).map(\.id) == expected)
        }
    }
}

extension PostgresStore {
    /// Puts the outbox's progress rows back as v21 left them (their target
    /// copied from their message, the three partial indexes on `state`), and v22
    /// and v26 as not applied: what the migration tests of the migrations before
    /// it start from.
    func putOutboxBackAsV21Left() async throws {
        try await putOutboxBackAsV25Left()
        try await runStatements([
            "ALTER TABLE outbox DROP COLUMN finished",
            "ALTER TABLE outbox ADD COLUMN target_kind TEXT, ADD COLUMN target_id TEXT",
            "UPDATE outbox SET target_kind = m.target_kind, target_id = m.target_id FROM outbox_message m WHERE m.id = outbox.id",
            "ALTER TABLE outbox ALTER COLUMN target_kind SET NOT NULL, ALTER COLUMN target_id SET NOT NULL",
            "CREATE INDEX outbox_pending ON outbox(id) WHERE state = 'pending'",
            "CREATE INDEX outbox_sending ON outbox(claimed_at) WHERE state = 'sending'",
            "CREATE INDEX outbox_pending_by_target ON outbox(target_kind, target_id) WHERE state = 'pending'",
            "DELETE FROM schema_migration WHERE name = 'v22-outbox-claimed-in-place'",
        ])
    }
}
