import Foundation
import Store
@testable import StorePostgres
import StoreTestSupport
import Testing
import Vocabulary

/// v26: the outbox holds the unfinished pushes only. A finished push's row goes
/// with what finishes it, its end kept in `outbox_end`, or, for a push sent, in
/// its push log entry; the claim names its node by its code.
@Suite(.enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.skipped)), .closesStores)
struct OutboxHoldsUnfinishedPushesTests {
    /// Pushes in every state, from a tick and from the console's paths, read back
    /// whole through every reader, while the outbox holds only those unfinished.
    @Test func aFinishedPushLeavesTheOutboxAndReadsAsItEnded() async throws {
        let store = try #require(try await StoreEngine.postgres.open() as? PostgresStore)
        let (adventure, _) = try await pushesInEveryState(in: store)
        let entries = try await store.outbox(of: adventure)
        #expect(entries.map(\.state) == [.failed, .sent, .pending, .dropped, .superseded, .sending, .pending])
        #expect(entries.map(\.attempts) == [1, 1, 1, 0, 0, 1, 0])
        #expect(entries[0].outcome == "token no longer valid: Unregistered")
        #expect(entries[2].outcome == "retrying: TooManyRequests")
        #expect(entries[3].outcome?.hasPrefix("its token was found invalid") == true)
        #expect(entries[4].message.supersedable && !entries[0].message.supersedable)

        let unfinished = entries.filter { [.pending, .sending].contains($0.state) }.map { ["\($0.id.rawValue)"] }
        // Since v27, only the push to try again has a progress row.
        let progress = try await rawRows(in: store.location, "SELECT id::text FROM outbox ORDER BY id")
        #expect(progress == [["\(entries[2].id.rawValue)"]])
        let ends = try await rawRows(in: store.location, "SELECT id::text, state FROM outbox_end ORDER BY id")
        #expect(ends == entries.filter { [.failed, .dropped, .superseded].contains($0.state) }.map { ["\($0.id.rawValue)", $0.state.rawValue] })
        #expect(try await store.pendingOutboxCount() == unfinished.count)
        // The claim names this node by its code.
        let claimants = try await rawRows(in: store.location, Self.sendingClaimants)
        #expect(claimants == [[store.node]])

        // An answer to a finished push is refused, and says why.
        let sending = try #require(try await store.claimOutbox(limit: 10).first)
        #expect(try await store.record([PushResult(sending, .delivered(apnsID: "b-1"))]) == [nil])
        let again = try await store.record([PushResult(sending, .delivered(apnsID: "b-2"))])
        #expect("\(again)".contains("is answered, not sending"), "\(again)")
        #expect(try await store.outbox(of: adventure).first { $0.id == sending.id }?.state == .sent)
        #expect(try await store.pushLog(of: adventure).filter { $0.outbox == sending.id }.map(\.apnsID) == ["b-1"])
    }

    /// A database from before v26 keeps every push as it read, the finished ones
    /// moved to `outbox_end`; what was claimed stays claimed by the same node.
    @Test func v26KeepsEveryPushAsItRead() async throws {
        let location = try await PostgresTestServer.shared.freshDatabase()
        let store = try await PostgresStore.open(location)
        let (adventure, before, pushLog, claimant) = try await closing(store) {
            let (adventure, _) = try await pushesInEveryState(in: store)
            let before = try await store.outbox(of: adventure)
            let pushLog = try await store.pushLog(of: adventure)
            try await store.putOutboxBackAsV25Left()
            #expect(try await rawRows(in: location, "SELECT count(*)::text FROM outbox") == [["\(before.count)"]])
            return (adventure, before, pushLog, store.node)
        }
        let reopened = try await PostgresStore.open(location)
        try await closing(reopened) {
            #expect(try await reopened.appliedMigrations().contains("v26-outbox-holds-unfinished-pushes"))
            #expect(try await reopened.outbox(of: adventure) == before)
            #expect(try await reopened.pushLog(of: adventure) == pushLog)
            #expect(try await reopened.pendingOutboxCount() == 3)
            let ends = try await rawRows(in: location, "SELECT count(*)::text FROM outbox_end")
            #expect(ends == [["\(before.count - 3)"]])
            let claimants = try await rawRows(in: location, Self.sendingClaimants)
            #expect(claimants == [[claimant]])
            // What waits is claimed and answered as before.
            let waiting = try #require(before.last)
            let claimed = try await reopened.claimOutbox(limit: 10)
            #expect(claimed.map(\.id) == [waiting.id])
            #expect(try await reopened.record(claimed.map { PushResult($0, .delivered(apnsID: "c-1")) }) == [nil])
            #expect(try await reopened.outbox(of: adventure).last?.state == .sent)
        }
    }

    /// An adventure's pushes, oldest first: failed, sent, waiting to be tried
    /// again, dropped with its token, superseded, being sent, waiting.
    private func pushesInEveryState(in store: PostgresStore) async throws -> (AdventureID, [ActivityID]) {
        let trio = try await Trio.make(in: store)
        let adventure = try await trio.startAdventure()
        let activities = try await trio.registerActivities(for: adventure.id)
        try await store.playNextTick(of: adventure.id) { _ in activities.map { update($0, tick: 1, alert: true) } }
        try await store.playNextTick(of: adventure.id) { _ in [update(activities[0], tick: 2, alert: true)] }
        let answers: [PushOutcome] = [.tokenInvalid(status: 410, reason: "Unregistered", since: nil, apnsID: "a-1"),
                                      .delivered(apnsID: "a-2"),
                                      .retryLater(at: Date().addingTimeInterval(3_600), reason: "TooManyRequests")]
        for outcome in answers {
            let claimed = try await store.claimOutbox(limit: 1)
            #expect(try await store.record(claimed.map { PushResult($0, outcome) }) == [nil])
        }
        try await store.playNextTick(of: adventure.id) { _ in [update(activities[1], tick: 3)] }
        try await store.playNextTick(of: adventure.id) { _ in [update(activities[1], tick: 4)] }
        #expect(try await store.claimOutbox(limit: 1).count == 1) // left being sent
        try await store.playNextTick(of: adventure.id) { _ in [update(activities[2], tick: 5)] }
        return (adventure.id, activities)
    }

    /// The nodes whose claims are being sent, by their ids.
    /// The nodes whose claims are being sent, by their ids (a claim in commit
    /// order since v27).
    private static let sendingClaimants = """
        SELECT n.id FROM outbox o JOIN node n ON n.code = o.claimed_by WHERE o.state = 'sending'
        UNION ALL SELECT n.id FROM outbox_claim c JOIN node n ON n.code = c.claimed_by
        """
}

extension PostgresStore {
    /// Puts the outbox back as v25 left it (a progress row for every push, its
    /// claimant by id, whether it is supersedable in it, the index of unfinished
    /// pushes), and v26 and v27 as not applied: what the migration tests of the
    /// migrations before it start from. Nothing when v26 is not applied.
    func putOutboxBackAsV25Left() async throws {
        try await putOutboxBackAsV26Left()
        guard try await appliedMigrations().contains("v26-outbox-holds-unfinished-pushes") else { return }
        try await runStatements([
            "ALTER TABLE outbox RENAME TO outbox_after_v26",
            "ALTER INDEX outbox_pkey RENAME TO outbox_after_v26_pkey",
            PostgresSchema.v22OutboxTable,
            """
            INSERT INTO outbox (id, supersedable, next_attempt_at, outcome, state, attempts, claimed_at, claimed_by)
            SELECT o.id, m.supersedable, o.next_attempt_at, o.outcome, o.state, o.attempts, o.claimed_at, n.id
            FROM outbox_after_v26 o JOIN outbox_message m ON m.id = o.id LEFT JOIN node n ON n.code = o.claimed_by
            UNION ALL
            SELECT e.id, m.supersedable, m.created_at, e.outcome, e.state, e.attempts, NULL, NULL
            FROM outbox_end e JOIN outbox_message m ON m.id = e.id
            UNION ALL
            SELECT l.outbox, m.supersedable, m.created_at, NULL, 'sent', l.claims, l.sent_at, NULL
            FROM push_log l JOIN outbox_message m ON m.id = l.outbox
            WHERE l.claims IS NOT NULL AND NOT EXISTS (SELECT 1 FROM outbox_end e WHERE e.id = l.outbox)
            ORDER BY 1
            """,
            "ALTER SEQUENCE outbox_id_seq OWNED BY outbox.id",
            "DROP TABLE outbox_after_v26",
            "DROP TABLE outbox_end",
            "CREATE INDEX outbox_unfinished ON outbox(id) WHERE NOT finished",
            "ALTER TABLE push_log DROP COLUMN claims",
            "ALTER TABLE outbox_message DROP COLUMN supersedable",
            "DELETE FROM schema_migration WHERE name = 'v26-outbox-holds-unfinished-pushes'",
        ])
    }
}
