import Foundation
import Game
import GRDB
import Store
@testable import StoreSQLite
import StoreTestSupport
import Testing
import Vocabulary

/// v16 finds an adventure's tick rows through a chain instead of an index by
/// adventure. A database written as v15 wrote it reads back the same events and
/// pushes, in order, with another adventure's ticks between each of its own; the
/// ticks played after the migration follow on.
@Suite struct ChainedTicksMigrationTests {
    @Test func v16ReadsEveryTickOfAnAdventureOldAndNew() async throws {
        let scratch = try ScratchDatabase()
        var adventures: [AdventureID] = [], activities: [[ActivityID]] = []
        // What v15 stored, as the game played it and as the pushes were queued.
        var events: [AdventureID: [LoggedEvent]] = [:], pushes: [AdventureID: [Int64]] = [:]
        do {
            let store = try scratch.open(upTo: "v15-pushes-through-ticks")
            for seed: UInt64 in [7, 9] {
                let trio = try await Trio.make(in: store)
                let id = try await trio.startAdventure(seed: seed).id
                adventures.append(id)
                activities.append(try await trio.registerActivities(for: id))
            }
            for tick in 1...3 {
                for (id, its) in zip(adventures, activities) {
                    let (logged, queued) = try await playNextTickAsV15(of: id, in: store,
                                                                       pushes: [update(its[tick - 1], tick: tick, alert: true)])
                    events[id, default: []] += logged
                    pushes[id, default: []] += queued
                }
            }
        }

        let store = try scratch.open()
        var outbox: [AdventureID: [OutboxEntry]] = [:]
        for id in adventures {
            #expect(try await store.events(of: id) == events[id])
            outbox[id] = try await store.outbox(of: id)
            #expect(outbox[id]!.map(\.id.rawValue) == pushes[id] && outbox[id]!.map(\.tick) == [1, 2, 3])
        }
        for (id, its) in zip(adventures, activities) {
            try await store.playNextTick(of: id) { _ in [update(its[0], tick: 4, alert: true)] }
        }
        for id in adventures {
            let after = try await store.events(of: id)
            #expect(Array(after.prefix(events[id]!.count)) == events[id] && after.last?.tick == 4)
            let newOutbox = try await store.outbox(of: id)
            #expect(Array(newOutbox.prefix(3)) == outbox[id] && newOutbox.count == 4 && newOutbox.last?.tick == 4)
            let record = try await store.record(of: id, includingOutbox: true)
            #expect(record.outboxCount == 4 && record.outbox == newOutbox)
            #expect(try await store.record(of: id, includingOutbox: false).outboxCount == 4)
        }
        #expect(try await store.rawRead { try String.fetchOne($0, sql: "PRAGMA integrity_check") } == "ok")
    }

    /// The adventure's next tick played by the real game and stored as v15 stored
    /// it: the adventure's row, the pushes, and a tick row naming them, unchained.
    /// Returns the events logged and the pushes' ids.
    private func playNextTickAsV15(of id: AdventureID, in store: SQLiteStore,
                                   pushes: [OutboxMessage]) async throws -> ([LoggedEvent], [Int64]) {
        let stored = try await store.adventure(id)
        let (state, tickEvents) = try Adventure(setup: stored.setup, content: ShippedContent.game).tick(stored.state)
        let ids = try await store.rawWrite { db in
            try db.execute(sql: "UPDATE adventure SET state = ?, lastTick = ?, nextTickAt = nextTickAt + tickInterval WHERE id = ?",
                           arguments: [CanonicalJSON.text(of: state), state.tick, id.rawValue])
            let ids = try pushes.map {
                try SQLiteStore.enqueue($0, adventure: id, tick: state.tick, at: Date().databaseValue, inTickRange: true, db)
            }
            try db.execute(sql: "INSERT INTO tickEvents (adventure, tick, events, firstPush, lastPush) VALUES (?, ?, ?, ?, ?)",
                           arguments: [id.rawValue, state.tick, TickEventsText.text(of: tickEvents.map(CanonicalJSON.text(of:))),
                                       ids.first, ids.last])
            return ids
        }
        return (tickEvents.enumerated().map { LoggedEvent(tick: state.tick, position: $0.offset, event: $0.element) }, ids)
    }
}
