import Foundation
import PostgresNIO
import Store
@testable import StorePostgres
import StoreTestSupport
import Testing
import Vocabulary

/// v27: a push waits for its first claim with no progress row; a claim takes the
/// next pushes in the order their transactions committed, and names them in one
/// row of its own.
@Suite(.enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.skipped)), .closesStores)
struct PushesClaimedInCommitOrderTests {
    /// A claim of many pushes writes one claim row and no row for each push; the
    /// answers empty it, and what is tried again gets its progress row then.
    @Test func aClaimIsOneRowWhateverItTakes() async throws {
        let store = try #require(try await StoreEngine.postgres.open() as? PostgresStore)
        let trio = try await Trio.make(in: store)
        let adventure = try await trio.startAdventure()
        let activities = try await trio.registerActivities(for: adventure.id)
        for tick in 1...10 {
            try await store.playNextTick(of: adventure.id) { _ in activities.map { update($0, tick: tick, alert: true) } }
        }
        #expect(try await rawRows(in: store.location, "SELECT count(*)::text FROM outbox") == [["0"]])
        #expect(try await store.pendingOutboxCount() == 30)

        let claimed = try await store.claimOutbox(limit: 100)
        #expect(claimed.count == 30)
        #expect(try await rawRows(in: store.location, "SELECT count(*)::text, sum(cardinality(unanswered))::text FROM outbox_claim")
            == [["1", "30"]])
        #expect(try await rawRows(in: store.location, "SELECT count(*)::text FROM outbox") == [["0"]])
        #expect(try await store.outbox(of: adventure.id).allSatisfy { $0.state == .sending && $0.attempts == 1 })

        let later = Date().addingTimeInterval(3_600)
        let outcomes = claimed.enumerated().map { index, push in
            PushResult(push, index == 0 ? .retryLater(at: later, reason: "TooManyRequests") : .delivered(apnsID: "\(index)"))
        }
        #expect(try await store.record(Array(outcomes.prefix(10))).allSatisfy { $0 == nil })
        #expect(try await rawRows(in: store.location, "SELECT sum(cardinality(unanswered))::text FROM outbox_claim") == [["20"]])
        #expect(try await store.record(Array(outcomes.dropFirst(10))).allSatisfy { $0 == nil })
        #expect(try await rawRows(in: store.location, "SELECT count(*)::text FROM outbox_claim") == [["0"]])
        #expect(try await rawRows(in: store.location, "SELECT id::text, state, attempts::text FROM outbox")
            == [["\(claimed[0].id.rawValue)", "pending", "1"]])
        let states = try await store.outbox(of: adventure.id).map(\.state)
        #expect(states.filter { $0 == .sent }.count == 29 && states.filter { $0 == .pending }.count == 1)
        // A second answer finds the push answered.
        let again = try await store.record([outcomes[1]])
        #expect("\(again)".contains("is answered, not sending"), "\(again)")
    }

    /// A push whose transaction commits after a newer push's is not passed over:
    /// the claim waits for the older transaction (and the dispatcher is told
    /// nothing is due meanwhile), then takes both, in the order of their
    /// transactions.
    @Test func aPushCommittedAfterANewerOneIsNotPassedOver() async throws {
        let store = try #require(try await StoreEngine.postgres.open() as? PostgresStore)
        let trio = try await Trio.make(in: store)
        let adventure = try await trio.startAdventure()
        let activities = try await trio.registerActivities(for: adventure.id)
        try await store.playNextTick(of: adventure.id) { _ in [update(activities[0], tick: 1, alert: true)] }
        let first = try #require(try await store.claimOutbox(limit: 1).first)
        try await store.recordDelivered(first, apnsID: "a-1")

        try await withRawConnection(to: store.location) { held in
            // A push queued by a transaction that stays open, drawn before the tick's.
            try await run("BEGIN", on: held)
            try await run("""
                INSERT INTO outbox_message (id, expiration, created_at, priority, tick, topic_code, target_kind, push_type, has_alert,
                                            is_end, in_tick_log, adventure_code, target_id, reason, payload, supersedable)
                SELECT nextval('outbox_id_seq'), expiration, created_at, priority, tick, topic_code, target_kind, push_type, has_alert,
                       is_end, false, adventure_code, target_id, 'held back', payload, false
                FROM outbox_message WHERE id = \(first.id.rawValue)
                """, on: held)
            try await store.playNextTick(of: adventure.id) { _ in [update(activities[1], tick: 2, alert: true)] }
            #expect(try await store.claimOutbox(limit: 10).isEmpty, "the open transaction holds the claim back")
            #expect(try await store.nextOutboxAttemptAt() == nil, "nothing is due that a claim could take")
            try await run("COMMIT", on: held)
        }
        let claimed = try await store.claimOutbox(limit: 10)
        #expect(claimed.map(\.message.reason) == ["held back", "alert"])
        #expect(claimed.map(\.message.target) == [.liveActivity(activities[0]), .liveActivity(activities[1])])
    }

    /// Transaction ids are the cluster's: one open in another database does not
    /// hold this database's claims back.
    @Test func aTransactionOfAnotherDatabaseDoesNotHoldTheClaimsBack() async throws {
        let store = try #require(try await StoreEngine.postgres.open() as? PostgresStore)
        let trio = try await Trio.make(in: store)
        let adventure = try await trio.startAdventure()
        let activities = try await trio.registerActivities(for: adventure.id)
        try await whileATransactionIsOpenInAnotherDatabase {
            try await store.playNextTick(of: adventure.id) { _ in activities.map { update($0, tick: 1, alert: true) } }
            #expect(try await store.claimOutbox(limit: 10).count == 3)
        }
    }

    /// A database from before v27 keeps every push as it read: those waiting or
    /// being sent keep their progress rows, and are claimed and answered as
    /// before; the next pushes wait for their first claim.
    @Test func v27KeepsEveryPushAsItRead() async throws {
        let location = try await PostgresTestServer.shared.freshDatabase()
        let store = try await PostgresStore.open(location)
        let (adventure, activities, before) = try await closing(store) {
            let trio = try await Trio.make(in: store)
            let adventure = try await trio.startAdventure()
            let activities = try await trio.registerActivities(for: adventure.id)
            try await store.playNextTick(of: adventure.id) { _ in activities.map { update($0, tick: 1, alert: true) } }
            let out = try await store.claimOutbox(limit: 2)
            try await store.recordDelivered(out[0], apnsID: "a-1")
            try await store.playNextTick(of: adventure.id) { _ in [update(activities[2], tick: 2)] }
            try await store.playNextTick(of: adventure.id) { _ in [update(activities[2], tick: 3)] }
            let before = try await store.outbox(of: adventure.id)
            #expect(before.map(\.state) == [.sent, .sending, .pending, .superseded, .pending])
            try await store.putOutboxBackAsV26Left()
            #expect(try await rawRows(in: location, "SELECT count(*)::text FROM outbox") == [["3"]])
            return (adventure.id, activities, before)
        }
        let reopened = try await PostgresStore.open(location)
        try await closing(reopened) {
            #expect(try await reopened.appliedMigrations().last == "v27-pushes-claimed-in-commit-order")
            #expect(try await reopened.outbox(of: adventure) == before)
            #expect(try await reopened.pendingOutboxCount() == 3)
            try await reopened.playNextTick(of: adventure) { _ in [update(activities[0], tick: 4, alert: true)] }
            let claimed = try await reopened.claimOutbox(limit: 10)
            #expect(claimed.map(\.tick) == [1, 3, 4], "the progress rows first, then the pushes queued since")
            #expect(try await reopened.record(claimed.map { PushResult($0, .delivered(apnsID: "b-\($0.id.rawValue)")) })
                .allSatisfy { $0 == nil })
            #expect(try await reopened.pendingOutboxCount() == 1, "the push claimed before v27 is still out")
        }
    }
}


extension PostgresStore {
    /// Puts the outbox back as v26 left it (a progress row for every push
    /// unfinished, the ones a claim will supersede ended so), and v27 as not
    /// applied: what the migration tests of the migrations before it start from.
    /// Nothing when v27 is not applied.
    func putOutboxBackAsV26Left() async throws {
        guard try await appliedMigrations().contains("v27-pushes-claimed-in-commit-order") else { return }
        try await runStatements([
            """
            INSERT INTO outbox_end (id, attempts, state, outcome)
            SELECT m.id, 0, 'superseded', 'a newer update for this activity was queued' FROM outbox_message m
            WHERE \(Self.pastTheCursor) AND NOT EXISTS (SELECT 1 FROM outbox_end e WHERE e.id = m.id)
              AND m.supersedable AND \(Self.newerPushQueued)
            """,
            """
            INSERT INTO outbox (id, next_attempt_at, outcome, state, attempts, claimed_at, claimed_by)
            SELECT u.id, c.claimed_at, NULL, 'sending', 1, c.claimed_at, c.claimed_by
            FROM outbox_claim c CROSS JOIN LATERAL UNNEST(c.unanswered) AS u(id)
            UNION ALL
            SELECT m.id, m.created_at, NULL, 'pending', 0, NULL, NULL FROM outbox_message m WHERE \(Self.waitingForItsFirstClaim)
            ORDER BY 1
            """,
            "DROP TABLE outbox_claim",
            "DROP TABLE outbox_cursor",
            "DROP INDEX outbox_message_in_commit_order",
            "ALTER TABLE outbox_message DROP COLUMN written_by",
            "DELETE FROM schema_migration WHERE name = 'v27-pushes-claimed-in-commit-order'",
        ])
    }
}
