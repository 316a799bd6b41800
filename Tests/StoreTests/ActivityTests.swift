import Foundation
import Game
import Store
import StoreTestSupport
import Testing

/// What the benchmarks read: the log bytes and statements a store's writes cost.
@Suite(.closesStores) struct ActivityTests {
    @Test(arguments: StoreEngine.available) func aStoredTickGrowsTheLogAndCountsItsStatements(engine: StoreEngine) async throws {
        let store = try await engine.open()
        let reporting = try #require(store as? any StoreActivityReporting)
        let trio = try await Trio.make(in: store)
        let adventure = try await trio.startAdventure(seed: 3)
        _ = try await trio.registerActivities(for: adventure.id)
        let before = try await reporting.activity()
        try await store.playNextTick(of: adventure.id)
        let after = try await reporting.activity()
        #expect(after.logBytesWritten > before.logBytesWritten)
        if engine == .sqlite {
            // A tick reads its adventure, updates it and inserts its events at least.
            let statements = try #require(after.statements) - (before.statements ?? 0)
            #expect(statements >= 3)
        }
    }
}
