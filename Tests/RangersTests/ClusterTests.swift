import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LiveView
import RangersClient
import Store
import StoreTestSupport
import Testing
import Vocabulary

/// Several `rangers serve` nodes on one PostgreSQL behind nginx: adventures shared
/// out by leases, a dead, paused or stopping node's work taken over.
@Suite(.enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.skipped)), .closesStores)
struct ClusterTests {
    /// Runs `body` with a cluster and stops everything it started, whatever happens.
    func withCluster(nodes: Int, leaseSeconds: Int, database: TestDatabase? = nil,
                     _ body: (inout Cluster) async throws -> Void) async throws {
        var cluster = try await Cluster.start(nodes: nodes, leaseSeconds: leaseSeconds, database: database)
        do {
            try await body(&cluster)
        } catch {
            await cluster.stop()
            throw error
        }
        await cluster.stop()
    }

    func startAdventures(_ count: Int, timeLimit: Int, through cluster: Cluster) async throws -> [(id: String, keys: [String])] {
        var started: [(id: String, keys: [String])] = []
        for index in 0..<count {
            started.append(try await AdventureChecks.start(through: cluster.api, gameMasterKey: Cluster.gameMasterKey,
                                                           label: "c\(index)", seed: 100 + index, timeLimit: timeLimit))
        }
        return started
    }

    func waitUntilEveryNodeHoldsSome(_ cluster: Cluster, of ids: [String], ticks: Int) async throws {
        try await cluster.api.waitFor("every node playing", within: .seconds(30)) {
            let holders = try await cluster.holders()
            let log = try await cluster.tickLog()
            return Set(holders.values).count == cluster.nodes.count
                && ids.allSatisfy { id in log.contains { $0.adventure == id && $0.tick >= ticks } }
        }
    }

    /// Waits until every adventure has ended and every push is settled, then checks each
    /// was played as an uninterrupted run would have been, each tick stored once
    /// (`tick_log`'s key is the adventure and the tick) and none missing. `expiring`:
    /// routine pushes may have expired while they could not be sent. Returns the reader it used.
    @discardableResult
    func expectEachPlayedToItsEnd(_ ids: [String], on cluster: Cluster, expiring: Bool = false,
                                  sourceLocation: SourceLocation = #_sourceLocation) async throws -> any RangersStore {
        // A reader, not a node: it must not count in the nodes' fair shares.
        let store = try await cluster.database.open(asNode: false)
        try await cluster.api.waitFor("every adventure's end and every push settled", within: .seconds(90)) {
            for id in ids {
                guard try await store.adventure(AdventureID(id)).status != .running else { return false }
                if try await store.outbox(of: AdventureID(id)).contains(where: { $0.state == .pending || $0.state == .sending }) {
                    return false
                }
            }
            return true
        }
        for id in ids {
            try await AdventureChecks.expectPlayedAsIfUninterrupted(AdventureID(id), in: store, expiring: expiring,
                                                                  sourceLocation: sourceLocation)
        }
        let log = try await cluster.tickLog()
        for id in ids {
            let ticks = log.filter { $0.adventure == id }.map(\.tick)
            let lastTick = try await store.adventure(AdventureID(id)).lastTick
            #expect(ticks == Array(1...lastTick), "\(id): \(ticks) to \(lastTick)", sourceLocation: sourceLocation)
        }
        return store
    }

    @Test func aNodeKilledMidAdventureLosesNothingAndItsAdventuresGoOnElsewhere() async throws {
        try await withCluster(nodes: 3, leaseSeconds: 3) { cluster in
            for node in cluster.nodes {
                let health = try await node.api.health()
                #expect(health.node == node.id && health.liveNodes == 3)
            }
            let adventures = try await startAdventures(20, timeLimit: 16, through: cluster)
            let ids = adventures.map(\.id)
            try await waitUntilEveryNodeHoldsSome(cluster, of: ids, ticks: 3)

            let holders = try await cluster.holders()
            let victim = try #require(Dictionary(grouping: holders.values) { $0 }.max { $0.value.count < $1.value.count }?.key)
            let moved = holders.filter { $0.value == victim }.map(\.key)
            let index = try #require(cluster.nodes.firstIndex { $0.id == victim })
            cluster.nodes[index].process.kill()
            let killedAt = try await cluster.databaseNow()

            // A potion to a node that does not hold the adventure, and one through nginx.
            let survivors = cluster.nodes.filter { $0.id != victim }
            let (heldElsewhere, holder) = try #require(holders.first { $0.value != victim })
            let other = try #require(survivors.first { $0.id != holder })
            let keysOf = Dictionary(uniqueKeysWithValues: adventures.map { ($0.id, $0.keys) })
            try await AdventureChecks.usePotion(heldElsewhere, hero: .egghead, key: keysOf[heldElsewhere]![1], through: other.api)
            let throughNginx = try #require(moved.first)
            try await AdventureChecks.usePotion(throughNginx, hero: .spouty, key: keysOf[throughNginx]![2], through: cluster.api)

            let store = try await expectEachPlayedToItsEnd(ids, on: cluster)
            let log = try await cluster.tickLog()
            // Taken over within the lease plus one tick interval (and half a second for
            // the pass that takes it and the commit).
            for id in moved {
                let after = try #require(log.first { $0.adventure == id && $0.at > killedAt })
                #expect(after.node != victim)
                #expect(after.at - killedAt <= Double(cluster.leaseSeconds) + 1 + 0.5, "\(id) taken over after \(after.at - killedAt) s")
            }
            #expect(try await store.commands(of: AdventureID(heldElsewhere)).count == 1, "the potion sent to another node")
            #expect(try await store.commands(of: AdventureID(throughNginx)).count == 1, "the potion sent through nginx")
            #expect(Set(try cluster.routed().map(\.upstream)).count >= 3, "nginx spread the requests over the nodes")

            let replay = try await RangersProcess.run(["replay", throughNginx, "--database", cluster.database.location])
            #expect(replay.stdout.hasPrefix("identical: "), "\(replay.stdout)\(replay.stderr)")
        }
    }

    /// The live page's stream through nginx: any node serves it, from the store, as
    /// it happens (nginx passes it on unbuffered); when the node holding the
    /// adventure dies, a page reconnecting through nginx goes on after the last
    /// event it saw, on the other node, missing and repeating nothing.
    @Test func theLivePagesStreamWorksThroughNginxWhicheverNodeServesIt() async throws {
        try await withCluster(nodes: 2, leaseSeconds: 3) { cluster in
            let adventure = try await AdventureChecks.start(through: cluster.api, gameMasterKey: Cluster.gameMasterKey, label: "live",
                                                            seed: 11, timeLimit: 60)
            // A member asks one node (through nginx) for the link; the secret is every node's.
            let link = try await AdventureChecks.liveLink(adventure.id, key: adventure.keys[1], through: cluster.api)
            let page = link.path
            #expect(link.url == cluster.api.base + page, "the link names nginx, the host the caller used")
            let stream = link.eventsPath
            // Each node is asked for what is in the store: wait until there is a push to stream.
            let store = try await cluster.database.open(asNode: false)
            try await cluster.api.waitFor("a first push answered", within: .seconds(20)) {
                !(try await store.pushLog(of: AdventureID(adventure.id)).isEmpty)
            }

            for node in cluster.nodes {
                let (html, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(node.port)" + page)!)
                #expect((response as? HTTPURLResponse)?.statusCode == 200 && html.count > 1000, "the page from \(node.id)")
                let reading = try await EventStreamReader.read("http://127.0.0.1:\(node.port)" + stream, for: 2)
                #expect(reading.status == 200)
                #expect(reading.messages.first?.event == "adventure")
                #expect(!reading.pushes.isEmpty, "\(node.id) streamed no push")
            }

            let first = try await EventStreamReader.read(cluster.api.base + stream, for: 4)
            #expect(first.status == 200 && first.contentType.hasPrefix("text/event-stream"))
            let seconds = Set(first.messages.map { Int($0.arrivedAt) })
            #expect(seconds.count >= 3, "messages arrived only in seconds \(seconds.sorted()) of 4: nginx held the stream back")
            let lastID = try #require(first.messages.last { $0.id != nil }?.id)

            let holder = try #require(try await cluster.holders()[adventure.id])
            let index = try #require(cluster.nodes.firstIndex { $0.id == holder })
            cluster.nodes[index].process.kill()
            let resumed = try await EventStreamReader.read(cluster.api.base + stream, for: Double(cluster.leaseSeconds) + 5,
                                                           lastEventID: lastID)
            #expect(resumed.status == 200)
            let before = first.pushes.compactMap { $0.id.flatMap(LiveCursor.init)?.pushLog }
            let after = resumed.pushes.compactMap { $0.id.flatMap(LiveCursor.init)?.pushLog }
            #expect(!after.isEmpty, "no push reached the page after the other node took the adventure over")
            let seen = before + after
            #expect(seen == seen.sorted() && Set(seen).count == seen.count, "each push once, in the log's order")
            let log = try await store.pushLog(of: AdventureID(adventure.id), after: .start, limit: 10_000).entries.map(\.cursor)
            #expect(seen == log.filter { $0 <= seen.last! }, "the page saw the log, every entry up to the last it got")
            #expect(Set(try cluster.routed().filter { $0.path.contains("/events") }.map(\.upstream)).count >= 1)
        }
    }

    /// A node paused past its lease: the other takes its adventures; resumed, it
    /// stores nothing for them and forgets them.
    @Test func aNodePausedPastItsLeaseStoresNothingForWhatMovedAndForgetsIt() async throws {
        try await withCluster(nodes: 2, leaseSeconds: 3) { cluster in
            let ids = try await startAdventures(6, timeLimit: 40, through: cluster).map(\.id)
            try await waitUntilEveryNodeHoldsSome(cluster, of: ids, ticks: 2)
            let paused = cluster.nodes[0]
            let before = try await cluster.holders().filter { $0.value == paused.id }.map(\.key)
            #expect(!before.isEmpty)
            kill(paused.process.process.processIdentifier, SIGSTOP)
            try await Task.sleep(for: .seconds(cluster.leaseSeconds + 3))
            let whilePaused = try await cluster.holders()
            #expect(before.allSatisfy { whilePaused[$0] == cluster.nodes[1].id }, "taken while paused: \(whilePaused)")
            kill(paused.process.process.processIdentifier, SIGCONT)
            try await Task.sleep(for: .seconds(3))

            // Once the other node stored a tick of a moved adventure, the resumed node
            // stores none of it, unless it took the lease again later (the other gives
            // some back once both are live: a fair share each).
            let log = try await cluster.tickLog()
            let leases = try await cluster.leaseLog()
            for id in before {
                let firstElsewhere = try #require(log.first { $0.adventure == id && $0.node != paused.id })
                let retaken = leases.first { $0.adventure == id && $0.node == paused.id && $0.at > firstElsewhere.at }
                let stale = log.filter {
                    $0.adventure == id && $0.node == paused.id && $0.tick > firstElsewhere.tick && $0.at < (retaken?.at ?? .infinity)
                }
                #expect(stale.isEmpty, "\(id): the resumed node stored \(stale.map(\.tick)) after the other had it")
            }
            // What the resumed node says it holds is what the database says it holds.
            try await cluster.api.waitFor("the resumed node to forget what moved", within: .seconds(10)) {
                let held = try await paused.api.health().adventuresHeld
                return held == (try await cluster.holders().filter { $0.value == paused.id }.count)
            }
        }
    }

    /// SIGTERM: the node gives its leases up as it stops, so its adventures move
    /// at once rather than after a (here 30 s) lease, and it exits 0.
    @Test func aNodeStoppedWithSIGTERMHandsItsAdventuresOverAtOnce() async throws {
        try await withCluster(nodes: 2, leaseSeconds: 30) { cluster in
            let ids = try await startAdventures(6, timeLimit: 60, through: cluster).map(\.id)
            try await waitUntilEveryNodeHoldsSome(cluster, of: ids, ticks: 2)
            let stopping = cluster.nodes[0]
            let handed = try await cluster.holders().filter { $0.value == stopping.id }.map(\.key)
            #expect(!handed.isEmpty)
            let stoppedAt = try await cluster.databaseNow()
            #expect(try await stopping.process.terminate() == 0, "exits 0 after SIGTERM")
            try await cluster.api.waitFor("the other node to play them", within: .seconds(8)) {
                let log = try await cluster.tickLog()
                return handed.allSatisfy { id in log.contains { $0.adventure == id && $0.node == cluster.nodes[1].id } }
            }
            let log = try await cluster.tickLog()
            for id in handed {
                let first = try #require(log.first { $0.adventure == id && $0.node == cluster.nodes[1].id })
                #expect(first.at - stoppedAt < 8, "\(id) moved after \(first.at - stoppedAt) s, not after the 30 s lease")
            }
        }
    }
}
