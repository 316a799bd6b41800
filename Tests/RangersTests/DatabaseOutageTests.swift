import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Store
import StoreTestSupport
import Testing
import Vocabulary

extension ClusterTests {
    /// PostgreSQL crashes (`pg_ctl stop -m immediate`) under running adventures on
    /// two nodes and comes back 8 s later. Every node stays up; while it is away
    /// `/healthz` answers 200 at once, `/readyz` and a write answer 503 with
    /// `Retry-After` within a bounded time; once it is back the nodes are ready
    /// again by themselves, and every adventure is played to its end with each tick
    /// stored once, none missing, as an uninterrupted run would have.
    @Test func theDatabaseCrashesAndComesBackAndNothingIsLost() async throws {
        let server = PostgresTestServer()
        let database = TestDatabase(engine: .postgres, location: try await server.freshDatabaseURL())
        try await withCluster(nodes: 2, leaseSeconds: 3, database: database) { cluster in
            let ids = try await startAdventures(6, timeLimit: 22, through: cluster).map(\.id)
            try await waitUntilEveryNodeHoldsSome(cluster, of: ids, ticks: 2)

            try await server.crash()
            let crashed = ContinuousClock.now
            var answers: [String] = []
            while ContinuousClock.now - crashed < .seconds(10) {
                for node in cluster.nodes {
                    var asked = ContinuousClock.now
                    let health = try await get(node.api.base + "/healthz")
                    #expect(health.status == 200, "alive while the database is away")
                    #expect(ContinuousClock.now - asked < .seconds(3), "/healthz at once")
                    asked = ContinuousClock.now
                    let ready = try await get(node.api.base + "/readyz")
                    #expect(ready.status == 503 && ready.retryAfter != nil, "\(ready.status) \(ready.body)")
                    #expect(ContinuousClock.now - asked < .seconds(4), "/readyz within its 2 s check")
                    asked = ContinuousClock.now
                    let write = try await post(node.api.base + "/v1/players", body: #"{"name":"Dana"}"#)
                    #expect(write.status == 503 && write.retryAfter != nil, "a write: \(write.status) \(write.body)")
                    #expect(ContinuousClock.now - asked < .seconds(Cluster.requestDeadlineSeconds + 2), "within the request deadline")
                    answers.append("\(health.status)/\(ready.status)/\(write.status)")
                }
            }
            #expect(!answers.isEmpty)
            try await server.restart()
            let restarted = ContinuousClock.now
            for node in cluster.nodes {
                try await cluster.api.waitFor("\(node.id) ready again", within: .seconds(30)) {
                    try await get(node.api.base + "/readyz").status == 200
                }
                #expect(node.process.process.isRunning, "\(node.id) stayed up")
            }
            print("outage: answers while away \(Dictionary(grouping: answers) { $0 }.mapValues(\.count)); "
                  + "both nodes ready \(ContinuousClock.now - restarted) after the restart")

            // Pushes claimed before the crash were sent or superseded; routine ones queued may expire meanwhile.
            try await expectEachPlayedToItsEnd(ids, on: cluster, expiring: true)
            for node in cluster.nodes { #expect(node.process.process.isRunning, "\(node.id) stayed up") }
        }
    }

    /// SIGTERM, and PostgreSQL gone a moment later: the node's drain keeps its
    /// deadline, it exits within it (not 20 minutes later), saying how many pushes
    /// it left if it left any, and says the database's trouble once, not four times
    /// a second.
    @Test func aNodeStoppingWhileItsDatabaseGoesAwayExitsWithinItsDrain() async throws {
        let server = PostgresTestServer()
        let database = TestDatabase(engine: .postgres, location: try await server.freshDatabaseURL())
        let port = try PostgresTestServer.freePort()
        let api = ServerAPI(base: "http://127.0.0.1:\(port)")
        let log = try ScratchFiles.newDirectory().appendingPathComponent("serve.log")
        let node = try await ServeProcess.start(database: database, port: port, gameMasterKey: Cluster.gameMasterKey, api: api,
                                                arguments: ["--drain-seconds", "3", "--lease-seconds", "3"], log: log)
        for index in 0..<3 {
            _ = try await AdventureChecks.start(through: api, gameMasterKey: Cluster.gameMasterKey, label: "d\(index)",
                                                seed: 200 + index, timeLimit: 60)
        }
        try await Task.sleep(for: .seconds(3))
        node.process.terminate()
        try await server.crash()
        let stopped = ContinuousClock.now
        while node.process.isRunning, ContinuousClock.now - stopped < .seconds(30) { try await Task.sleep(for: .milliseconds(50)) }
        let took = ContinuousClock.now - stopped
        if node.process.isRunning { node.kill() }
        try await server.restart()
        let printed = try String(contentsOf: log, encoding: .utf8)
        #expect(took < .seconds(3 + 10 + 3), "exited \(took) after SIGTERM; the drain is 3 s, the stop's deadline 13 s")
        #expect(node.process.terminationReason == .exit && [0, 1].contains(node.process.terminationStatus),
                "\(node.process.terminationReason) \(node.process.terminationStatus)")
        if node.process.terminationStatus == 1 {
            #expect(printed.contains("go back to pending once") && printed.contains("claims expire"), "\(printed.suffix(2000))")
        }
        let complaints = printed.split(separator: "\n").filter { $0.contains("cannot record answers and claim pushes") }
        #expect(complaints.count <= 2, "said once per change of state, not at every try: \(complaints.count) lines")
        print("stopping while the database goes away: exited \(node.process.terminationStatus) after \(took)")
    }

    private struct Answer {
        var status: Int
        var retryAfter: String?
        var body: String
    }

    private func get(_ url: String) async throws -> Answer { try await send(URLRequest(url: URL(string: url)!)) }

    private func post(_ url: String, body: String) async throws -> Answer {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = "POST"
        request.httpBody = Data(body.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        return try await send(request)
    }

    /// A client that waits at most 20 s: a hang is a failure, not a wait.
    private func send(_ request: URLRequest) async throws -> Answer {
        var request = request
        request.timeoutInterval = 20
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        return Answer(status: http.statusCode, retryAfter: http.value(forHTTPHeaderField: "Retry-After"),
                      body: String(decoding: data, as: UTF8.self))
    }
}
