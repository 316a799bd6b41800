import Foundation
import Game
import Logging
import PostgresNIO
import Store
@testable import StorePostgres
import StoreTestSupport
import Testing
import Vocabulary

/// An adventure's state and a tick's events are kept deflated (`StoredGameText`,
/// v21); ones kept as the JSON text every version before stored are read as they are.
@Suite(.enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.skipped)), .closesStores)
struct DeflatedGameTextPostgresTests {
    @Test func aStateAndItsEventsAreStoredDeflatedAndReadAsTheyWereWhateverTheirStoredForm() async throws {
        let store = try #require(try await StoreEngine.postgres.open() as? PostgresStore)
        let id = try await Trio.make(in: store).startAdventure().id
        for _ in 1...3 { try await store.playNextTick(of: id) }
        let before = try await store.record(of: id, includingOutbox: false)
        let state = CanonicalJSON.text(of: before.adventure.state)
        let stored = try await store.storedGameText(of: id)
        #expect(stored.state.first == 0x02)
        #expect(!stored.events.isEmpty && stored.events.allSatisfy { $0.first == 0x02 })
        // The state's JSON is at least twice its stored bytes.
        #expect(stored.state.count * 2 < state.utf8.count)

        // The rows rewritten as the version before stored them: their JSON's UTF-8.
        let logger = Logger(label: "tests.deflated-game-text")
        _ = try await store.query("UPDATE adventure SET state = convert_to(\(state), 'UTF8') WHERE id = \(id.rawValue)",
                                  logger: logger)
        for (tick, events) in Dictionary(grouping: before.events, by: \.tick) {
            let text = TickEventsText.text(of: events.map(\.json))
            _ = try await store.query("""
                UPDATE tick_log SET events = convert_to(\(text), 'UTF8')
                WHERE adventure_code = (SELECT code FROM adventure WHERE id = \(id.rawValue)) AND tick = \(tick)
                """, logger: logger)
        }
        #expect(try await store.storedGameText(of: id).state == Data(state.utf8))
        let asBefore = try await store.record(of: id, includingOutbox: false)
        #expect(asBefore.adventure == before.adventure)
        #expect(asBefore.events == before.events)
        // And the adventure goes on, its next state deflated again.
        try await store.playNextTick(of: id)
        #expect(try await store.storedGameText(of: id).state.first == 0x02)
        #expect(Array(try await store.record(of: id, includingOutbox: false).events.prefix(before.events.count)) == before.events)
    }

    /// A database from before v21 kept the state and the events as `TEXT`; v21
    /// turns them into bytes, each the UTF-8 of its text, read as it was. The
    /// database is put back as v20 left it, then reopened.
    @Test func v21KeepsEveryStateAndEventAsItWas() async throws {
        let location = try await PostgresTestServer.shared.freshDatabase()
        let store = try await PostgresStore.open(location)
        let (id, before) = try await closing(store) {
            let id = try await Trio.make(in: store).startAdventure().id
            for _ in 1...3 { try await store.playNextTick(of: id) }
            let before = try await store.record(of: id, includingOutbox: false)
            try await store.putGameTextBackAsV20Left()
            return (id, before)
        }
        let reopened = try await PostgresStore.open(location)
        try await closing(reopened) {
            #expect(try await reopened.appliedMigrations().last == "v21-deflated-game-text")
            let after = try await reopened.record(of: id, includingOutbox: false)
            #expect(after.adventure == before.adventure)
            #expect(after.events == before.events)
            #expect(try await reopened.storedGameText(of: id).state.first == UInt8(ascii: "{"))
            try await reopened.playNextTick(of: id)
            #expect(try await reopened.storedGameText(of: id).state.first == 0x02)
        }
    }
}

extension PostgresStore {
    /// The adventure's state and its ticks' events as stored.
    func storedGameText(of id: AdventureID) async throws -> (state: Data, events: [Data]) {
        let logger = Logger(label: "tests.deflated-game-text")
        let state = try await query("SELECT state FROM adventure WHERE id = \(id.rawValue)", logger: logger)
            .decodeAll(Data.self)
        let events = try await query("""
            SELECT events FROM tick_log WHERE adventure_code = (SELECT code FROM adventure WHERE id = \(id.rawValue))
              AND events IS NOT NULL ORDER BY tick
            """, logger: logger).decodeAll(Data.self)
        return (try #require(state.first), events)
    }

    /// Puts the states and the events back as `TEXT` holding their JSON, as v20
    /// left them, and v21 as not applied: what the migration tests of the
    /// migrations before it start from.
    func putGameTextBackAsV20Left() async throws {
        let logger = Logger(label: "tests.migration")
        let states = try await query("SELECT id, state FROM adventure", logger: logger).decodeAll((String, Data).self)
        let events = try await query("SELECT adventure_code, tick, events FROM tick_log WHERE events IS NOT NULL", logger: logger)
            .decodeAll((Int64, Int, Data).self)
        try await runStatements([
            "ALTER TABLE tick_log DROP CONSTRAINT tick_log_events_check",
            "ALTER TABLE tick_log ALTER COLUMN events TYPE TEXT USING NULL",
            "ALTER TABLE adventure ALTER COLUMN state TYPE TEXT USING ''",
            "DELETE FROM schema_migration WHERE name = 'v21-deflated-game-text'",
        ])
        for (id, state) in states {
            _ = try await query("UPDATE adventure SET state = \(try StoredGameText.text(fromStored: state)) WHERE id = \(id)",
                                logger: logger)
        }
        for (adventure, tick, stored) in events {
            _ = try await query("""
                UPDATE tick_log SET events = \(try StoredGameText.text(fromStored: stored))
                WHERE adventure_code = \(adventure) AND tick = \(tick)
                """, logger: logger)
        }
        _ = try await query("ALTER TABLE tick_log ADD CONSTRAINT tick_log_events_check CHECK (events <> '')", logger: logger)
    }
}
