import Foundation
import Logging
import PostgresNIO
import Store
@testable import StorePostgres
import StoreTestSupport
import Testing
import Vocabulary

/// v17: a push's progress row is claimed on the page it was queued on, so the
/// claim is logged as a change and not as a whole row on another page after a
/// lock of the old one. v22: the claim is a HOT update, with no index entry.
/// v26: the answer, which finishes the push, deletes the row. v27: a push has a
/// progress row only once it is to be tried again.
@Suite(.enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.skipped)), .closesStores)
struct OutboxPageTests {
    @Test func aPushIsClaimedOnThePageItWasQueuedOnAndGoesWithItsAnswer() async throws {
        let store = try #require(try await StoreEngine.postgres.open() as? PostgresStore)
        let trio = try await Trio.make(in: store)
        let adventure = try await trio.startAdventure()
        let activities = try await trio.registerActivities(for: adventure.id)
        // Alerts, which nothing supersedes: every push is claimed and answered.
        for tick in 1...40 {
            try await store.playNextTick(of: adventure.id) { _ in activities.map { update($0, tick: tick, alert: true) } }
        }
        let first = try await store.claimOutbox(limit: 200)
        #expect(first.count == 120)
        #expect(try await pages(store).isEmpty, "a push has no progress row until it is to be tried again")
        let due = Date().addingTimeInterval(-1)
        #expect(try await store.record(first.map { PushResult($0, .retryLater(at: due, reason: "TooManyRequests")) })
            .allSatisfy { $0 == nil })
        let queued = try await pages(store)
        #expect(queued.count == 120)
        #expect(Set(queued.values).count >= 2, "the pushes fill more than one page")

        #expect(try await heapOnlyVersions(store) == 0)

        let claimed = try await store.claimOutbox(limit: 200)
        #expect(claimed.count == 120)
        #expect(try await pages(store) == queued)
        #expect(try await heapOnlyVersions(store) == 120, "every claim is written in place, with no index entry")
        let refusals = try await store.record(claimed.map { PushResult($0, .delivered(apnsID: "\($0.id.rawValue)")) })
        #expect(refusals.allSatisfy { $0 == nil })
        #expect(try await pages(store).isEmpty, "a finished push leaves the outbox")
        #expect(try await store.outbox(of: adventure.id).allSatisfy { $0.state == .sent && $0.attempts == 2 })
    }

    /// How many of the progress rows' live versions are heap-only tuples (a HOT
    /// update's, reached through the version before; `HEAP_ONLY_TUPLE` in
    /// `t_infomask2`), read from the pages by pageinspect.
    private func heapOnlyVersions(_ store: PostgresStore) async throws -> Int {
        let logger = Logger(label: "tests.outbox-pages")
        _ = try await store.query("CREATE EXTENSION IF NOT EXISTS pageinspect", logger: logger)
        return try await store.query(PostgresQuery(unsafeSQL: """
            SELECT count(*)::int FROM outbox o
            JOIN LATERAL heap_page_items(get_raw_page('outbox', (o.ctid::text::point)[0]::int)) h
              ON h.lp = (o.ctid::text::point)[1]::int
            WHERE h.t_infomask2 & 32768 <> 0
            """), logger: logger).decodeOne(Int.self)
    }

    /// The page each push's progress row is on now, by the push.
    private func pages(_ store: PostgresStore) async throws -> [Int64: Int] {
        let rows = try await store.query(PostgresQuery(unsafeSQL: "SELECT id, (ctid::text::point)[0]::int FROM outbox"),
                                         logger: Logger(label: "tests.outbox-pages")).decodeAll((Int64, Int).self)
        return Dictionary(uniqueKeysWithValues: rows)
    }
}
