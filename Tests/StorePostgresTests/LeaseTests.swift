import Foundation
import Game
import PushPolicy
import Store
@testable import StorePostgres
import StoreTestSupport
import Testing
import Vocabulary

/// Nodes sharing the running adventures through leases on one PostgreSQL.
@Suite(.enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.skipped)), .closesStores)
struct PostgresLeaseTests {
    /// `count` adventures started at 1,000 on a 2 s tick: all due by 1,002.
    func adventures(_ count: Int, in store: any RangersStore) async throws -> [StoredAdventure] {
        var started: [StoredAdventure] = []
        for seed in 0..<count {
            started.append(try await Trio.make(in: store).startAdventure(seed: UInt64(seed)))
        }
        return started
    }

    func node(_ database: TestDatabase, lease: Duration = .seconds(10)) async throws -> PostgresStore {
        try await database.open(lease: lease) as! PostgresStore
    }

    @Test func eachNodeTakesItsFairShareAndEachAdventureGoesToOne() async throws {
        let database = try await StoreEngine.postgres.database()
        let a = try await node(database), b = try await node(database)
        let all = Set(try await adventures(10, in: a).map(\.id))
        // Two live nodes: a share is 10 ÷ 2 = 5, plus a margin of 2.
        let takenByA = Set(try await a.dueAdventures(by: 1_002).map(\.id))
        let takenByB = Set(try await b.dueAdventures(by: 1_002).map(\.id))
        #expect(takenByA.count == 7 && takenByB.count == 3)
        #expect(takenByA.isDisjoint(with: takenByB) && takenByA.union(takenByB) == all)
        #expect(try await a.renewLeases() == .only(takenByA))
        #expect(try await b.renewLeases() == .only(takenByB))
    }

    @Test func aNodeThatJoinsIsGivenItsShare() async throws {
        let database = try await StoreEngine.postgres.database()
        let a = try await node(database)
        _ = try await adventures(10, in: a)
        #expect(try await a.dueAdventures(by: 1_002).count == 10)
        let b = try await node(database)
        // A holds more than its share now that B is alive: it gives up the excess.
        guard case .only(let keptByA) = try await a.renewLeases() else { Issue.record("no leases"); return }
        #expect(keptByA.count == 7)
        let takenByB = Set(try await b.dueAdventures(by: 1_002).map(\.id))
        #expect(takenByB.count == 3 && takenByB.isDisjoint(with: keptByA))
    }

    /// A node that stalls past its lease: another takes its adventure and stores
    /// the tick; the stalled node's late tick is refused, and its renewal no
    /// longer lists the adventure.
    @Test func aStalledNodeStoresNothingForAnAdventureThatMoved() async throws {
        let database = try await StoreEngine.postgres.database()
        let a = try await node(database, lease: .seconds(1)), b = try await node(database, lease: .seconds(1))
        let adventure = try #require(try await adventures(1, in: a).first)
        // The lease is never shorter than two tick intervals: 4 s here.
        #expect(try await a.dueAdventures(by: 1_002).map(\.id) == [adventure.id])
        let game = try Adventure(setup: adventure.setup, content: ShippedContent.game)
        let (state, events) = game.tick(adventure.state)
        let record = TickRecord(adventure: adventure.id, tick: 1, state: state, events: events, appliedCommandIDs: [],
                                outbox: [], ledgers: [:])

        await a.stopBeating()
        #expect(try await b.dueAdventures(by: 1_002).isEmpty, "taken while A's lease runs")
        try await Task.sleep(for: .milliseconds(4_300))
        #expect(try await b.dueAdventures(by: 1_002).map(\.id) == [adventure.id])
        // B holds it and has not stored its tick yet: the lease alone refuses A's.
        guard case .failure(let refusal) = try await a.recordTicks([record])[0] else {
            Issue.record("the stalled node stored a tick"); return
        }
        #expect("\(refusal)".contains("held by node \(b.node)"))
        #expect(try await b.recordTicks([record])[0].get().lastTick == 1)
        #expect(try await a.renewLeases() == .only([]))
        let log = try await database.rows(sqlite: "", postgres: "SELECT tick::text, node FROM tick_log_with_ids WHERE adventure = $1",
                                          [adventure.id.rawValue])
        #expect(log == [["1", b.node]])
    }

    @Test func leasesGivenUpAreTakenAtOnce() async throws {
        let database = try await StoreEngine.postgres.database()
        let a = try await node(database, lease: .seconds(60)), b = try await node(database, lease: .seconds(60))
        let all = Set(try await adventures(4, in: a).map(\.id))
        _ = try await a.dueAdventures(by: 1_002)
        _ = try await b.dueAdventures(by: 1_002)
        try await a.releaseLeases()
        #expect(try await a.renewLeases() == .only([]))
        #expect(Set(try await b.dueAdventures(by: 1_002).map(\.id)) == all, "without waiting out a 60 s lease")
    }

    @Test func aTickIsLoggedOnceByItsKey() async throws {
        let database = try await StoreEngine.postgres.database()
        let store = try await node(database)
        let adventure = try #require(try await adventures(1, in: store).first)
        try await store.playNextTick(of: adventure.id)
        await #expect(throws: (any Error).self) {
            _ = try await database.rows(sqlite: "", postgres: """
                INSERT INTO tick_log (adventure_code, tick) SELECT code, 1 FROM adventure WHERE id = $1 RETURNING tick::text
                """, [adventure.id.rawValue])
        }
    }
}
