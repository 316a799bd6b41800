import Foundation
import Game
import PushPolicy
import Store
import StoreTestSupport
import Testing
import Vocabulary

/// Following an adventure's push log page by page, as the live page does.
@Suite(.closesStores) struct PushLogReadingTests {
    private func running(_ engine: StoreEngine) async throws -> (any RangersStore, Trio, StoredAdventure, [ActivityID]) {
        try await engine.runningAdventure()
    }

    /// Plays a tick with one push per activity and answers each: delivered, or as
    /// `answer` says for the first activity.
    private func tickAnswered(_ store: any RangersStore, _ adventure: AdventureID, _ activities: [ActivityID],
                              firstAnswer: PushOutcome = .delivered(apnsID: "a")) async throws {
        let next = try await store.adventure(adventure).lastTick + 1
        try await store.playNextTick(of: adventure) { _ in activities.map { update($0, tick: next, alert: true) } }
        for push in try await store.claimOutbox(limit: 10) {
            let outcome = push.message.target == .liveActivity(activities[0]) ? firstAnswer : .delivered(apnsID: "a")
            try await store.record(outcome, for: push)
        }
    }

    /// Waits (up to ten seconds) until the log read from the start shows `count`
    /// entries. On PostgreSQL a read stops before the oldest transaction still
    /// open on the server, whichever database it writes (`pg_snapshot_xmin`):
    /// while other tests write in parallel, the entries just written can wait
    /// for a later read. Once shown, they stay shown.
    private func untilShown(_ count: Int, _ store: any RangersStore, _ adventure: AdventureID) async throws {
        for _ in 0..<200 {
            if try await store.pushLog(of: adventure, after: .start, limit: count + 1).entries.count >= count { return }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Every page from `cursor` on, `limit` at a time: the entries and the cursor at the end.
    private func readAll(_ store: any RangersStore, _ adventure: AdventureID, from cursor: PushLogCursor,
                         limit: Int) async throws -> (entries: [PushLogPage.Entry], cursor: PushLogCursor, pages: Int) {
        var entries: [PushLogPage.Entry] = []
        var cursor = cursor
        var pages = 0
        while true {
            let page = try await store.pushLog(of: adventure, after: cursor, limit: limit)
            pages += 1
            entries += page.entries
            cursor = page.cursor
            if page.entries.count < limit { return (entries, cursor, pages) }
        }
    }

    @Test(arguments: StoreEngine.available) func readingOnFromEachPageGivesEveryEntryOnceInTheLogsOrder(engine: StoreEngine) async throws {
        let (store, _, adventure, activities) = try await running(engine)
        for _ in 0..<3 { try await tickAnswered(store, adventure.id, activities) }
        let whole = try await store.pushLog(of: adventure.id)
        #expect(whole.count == 9)
        try await untilShown(9, store, adventure.id)

        let first = try await readAll(store, adventure.id, from: .start, limit: 2)
        #expect(first.pages == 5)
        #expect(first.entries.map(\.entry) == whole)
        #expect(first.entries.map(\.cursor) == first.entries.map(\.cursor).sorted())
        #expect(Set(first.entries.map(\.cursor)).count == 9)
        #expect(first.cursor == first.entries.last?.cursor)

        // Nothing new: the same cursor back, no entries.
        let idle = try await store.pushLog(of: adventure.id, after: first.cursor, limit: 10)
        #expect(idle.entries.isEmpty)
        #expect(idle.cursor == first.cursor)

        // A later tick: only its entries, with the answers as logged.
        try await tickAnswered(store, adventure.id, activities,
                               firstAnswer: .tokenInvalid(status: 410, reason: "Unregistered", since: nil))
        try await untilShown(12, store, adventure.id)
        let later = try await readAll(store, adventure.id, from: first.cursor, limit: 100)
        #expect(later.entries.map(\.entry) == Array(try await store.pushLog(of: adventure.id).suffix(3)))
        #expect(later.entries.map(\.entry.status).sorted { ($0 ?? 0) < ($1 ?? 0) } == [200, 200, 410])
        #expect(later.entries.allSatisfy { $0.entry.tick == 4 && $0.entry.decision == "alert" })
        #expect(later.entries.allSatisfy { String(decoding: $0.entry.payload, as: UTF8.self).contains(#""timestamp":4"#) })

        // A cursor goes through text (an event stream's id) and comes back the same.
        #expect(PushLogCursor(later.cursor.description) == later.cursor)
        let resumed = try await store.pushLog(of: adventure.id, after: try #require(PushLogCursor(first.cursor.description)),
                                              limit: 100)
        #expect(resumed.entries == later.entries)
    }

    @Test(arguments: StoreEngine.available) func anotherAdventuresPushesAreNotInItsLog(engine: StoreEngine) async throws {
        let (store, _, adventure, activities) = try await running(engine)
        let other = try await Trio.make(in: store)
        let otherAdventure = try await other.startAdventure(seed: 9)
        let otherActivities = try await other.registerActivities(for: otherAdventure.id)
        try await tickAnswered(store, otherAdventure.id, otherActivities)
        try await tickAnswered(store, adventure.id, activities)
        try await untilShown(3, store, adventure.id)
        let page = try await store.pushLog(of: adventure.id, after: .start, limit: 100)
        #expect(page.entries.count == 3)
        #expect(page.entries.allSatisfy { $0.entry.adventure == adventure.id })
        await #expect(throws: StoreError.self) {
            _ = try await store.pushLog(of: AdventureID("no-such-adventure"), after: .start, limit: 10)
        }
    }

    @Test(arguments: StoreEngine.available) func aPushWaitingForARetryIsListedUntilItIsSent(engine: StoreEngine) async throws {
        let (store, _, adventure, activities) = try await running(engine)
        try await store.playNextTick(of: adventure.id) { _ in [update(activities[0], tick: 1, alert: true)] }
        let push = try #require(try await store.claimOutbox(limit: 1).first)
        // Claimed and out: not waiting.
        #expect(try await store.pushLog(of: adventure.id, after: .start, limit: 10).waitingForRetry.isEmpty)

        try await store.reschedule(push, at: Date().addingTimeInterval(-1), reason: "TooManyRequests")
        let waiting = try await store.pushLog(of: adventure.id, after: .start, limit: 10)
        #expect(waiting.entries.isEmpty, "a retry is not in the log: APNs has not accepted or refused it")
        #expect(waiting.waitingForRetry.map(\.id) == [push.id])
        #expect(waiting.waitingForRetry.first?.outcome == "retrying: TooManyRequests")
        #expect(waiting.waitingForRetry.first?.attempts == 1)
        #expect(waiting.waitingForRetry.first?.message.target == .liveActivity(activities[0]))

        // A push queued and never tried is not waiting for a retry.
        try await store.playNextTick(of: adventure.id) { _ in [update(activities[1], tick: 2, alert: true)] }
        #expect(try await store.pushLog(of: adventure.id, after: .start, limit: 10).waitingForRetry.map(\.id) == [push.id])

        let again = try await store.claimOutbox(limit: 10)
        #expect(Set(again.map(\.id)).contains(push.id))
        for claimed in again { try await store.recordDelivered(claimed, apnsID: "ok") }
        try await untilShown(again.count, store, adventure.id)
        let sent = try await store.pushLog(of: adventure.id, after: .start, limit: 10)
        #expect(sent.waitingForRetry.isEmpty)
        #expect(sent.entries.map(\.entry.outbox).contains(push.id))
    }
}
