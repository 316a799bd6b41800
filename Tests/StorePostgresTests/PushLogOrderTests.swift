import Foundation
import Store
@testable import StorePostgres
import StoreTestSupport
import Testing
import Vocabulary

/// A push log entry's number is taken when it is written, not when its transaction
/// commits: two nodes answering pushes at once can commit a larger number first.
/// A reader following the log must not pass the smaller one by.
@Suite(.enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.skipped)), .closesStores)
struct PushLogOrderTests {
    @Test func anEntryWhoseTransactionCommitsAfterALaterNumberedOneIsNotPassedOver() async throws {
        let database = try await StoreEngine.postgres.database()
        let a = try await database.open() as! PostgresStore
        let b = try await database.open() as! PostgresStore
        let trio = try await Trio.make(in: a)
        let adventure = try await trio.startAdventure()
        let activities = try await trio.registerActivities(for: adventure.id)
        try await a.playNextTick(of: adventure.id) { _ in activities.prefix(2).map { update($0, tick: 1, alert: true) } }
        let first = try #require(try await a.claimOutbox(limit: 1).first)
        let second = try #require(try await b.claimOutbox(limit: 1).first)

        // Node a writes its answer (and so takes the smaller number) and holds its
        // transaction open; node b answers and commits meanwhile.
        let (written, writtenSignal) = AsyncStream.makeStream(of: Void.self)
        let (release, releaseSignal) = AsyncStream.makeStream(of: Void.self)
        async let held: Void = a.transaction { connection in
            _ = try await a.record([PushResult(first, .delivered(apnsID: "first"))], at: Date(), connection)
            writtenSignal.yield()
            for await _ in release { break }
        }
        for await _ in written { break }
        try await b.recordDelivered(second, apnsID: "second")
        let numbers = try await database.rows(sqlite: "", postgres: "SELECT outbox::text, id::text FROM push_log ORDER BY id")
        #expect(numbers.map { $0[0] } == [String(second.id.rawValue)], "only b's answer is committed")

        let whileOpen = try await b.pushLog(of: adventure.id, after: .start, limit: 10)
        #expect(whileOpen.entries.isEmpty, "b's entry waits behind a's open transaction: \(whileOpen.entries.map(\.entry.apnsID))")

        releaseSignal.yield()
        try await held
        let after = try await b.pushLog(of: adventure.id, after: whileOpen.cursor, limit: 10)
        #expect(after.entries.map(\.entry.apnsID) == ["first", "second"])
        let rows = try await database.rows(sqlite: "", postgres: "SELECT COALESCE(apns_id::text, apns_id_not_uuid), id::text FROM push_log ORDER BY id")
        #expect(rows.map { $0[0] } == ["first", "second"], "a's entry has the smaller number")
        #expect(try await b.pushLog(of: adventure.id, after: after.cursor, limit: 10).entries.isEmpty)
    }

    /// Transaction ids are the server's: one open in another database does not
    /// hold the reader back.
    @Test func aTransactionOfAnotherDatabaseDoesNotHoldTheReaderBack() async throws {
        let store = try #require(try await StoreEngine.postgres.open() as? PostgresStore)
        let trio = try await Trio.make(in: store)
        let adventure = try await trio.startAdventure()
        let activities = try await trio.registerActivities(for: adventure.id)
        try await store.playNextTick(of: adventure.id) { _ in [update(activities[0], tick: 1, alert: true)] }
        let claimed = try #require(try await store.claimOutbox(limit: 1).first)
        try await whileATransactionIsOpenInAnotherDatabase {
            try await store.recordDelivered(claimed, apnsID: "while-elsewhere-open")
            let page = try await readAgainWhileHeldBack({ try await store.pushLog(of: adventure.id, after: .start, limit: 10) },
                                                        until: { !$0.entries.isEmpty })
            #expect(page.entries.map(\.entry.apnsID) == ["while-elsewhere-open"])
        }
    }
}
