import Foundation
import StoreTestSupport

/// Nodes of `rangers serve` on one PostgreSQL database (each with the APNs
/// simulator inside it), and nginx from Debian in front of them, round-robin, as
/// a studio would run them. Stopped by `stop()`, which every test calls.
struct Cluster {
    struct Node {
        let id: String
        let port: Int
        var process: ServeProcess
        var api: ServerAPI { ServerAPI(base: "http://127.0.0.1:\(port)") }
    }

    static let gameMasterKey = "c1a5c1a5c1a5c1a5c1a5c1a5c1a5c1a5"
    /// One secret for every node: a live-page link from one opens the page on any.
    static let liveLinkSecret = "c1a5-live-links-c1a5-live-links-c1a5"
    static let nginx = "/usr/sbin/nginx"
    /// Short, so a test of the database going away need not wait long for its answers.
    static let requestDeadlineSeconds = 3

    let database: TestDatabase
    let leaseSeconds: Int
    var nodes: [Node]
    let folder: URL
    let loadBalancer: Process
    /// Through nginx.
    let api: ServerAPI

    /// On a fresh database of the tests' shared server, unless `database` names another.
    /// `logs`: a folder where each node's output goes (`node-1.log` …), for a test that reads it.
    static func start(nodes count: Int, leaseSeconds: Int, database given: TestDatabase? = nil, logs: URL? = nil) async throws -> Cluster {
        let database: TestDatabase
        if let given { database = given } else { database = try await StoreEngine.postgres.database() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rangers-cluster-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var nodes: [Node] = []
        for index in 1...count {
            let port = try PostgresTestServer.freePort()
            let process = try await ServeProcess.start(
                database: database, port: port, gameMasterKey: gameMasterKey, api: ServerAPI(base: "http://127.0.0.1:\(port)"),
                arguments: ["--node-id", "node-\(index)", "--lease-seconds", String(leaseSeconds),
                            "--request-deadline-seconds", String(requestDeadlineSeconds)],
                environment: ["RANGERS_LIVE_LINK_SECRET": liveLinkSecret], log: logs?.appendingPathComponent("node-\(index).log"))
            nodes.append(Node(id: "node-\(index)", port: port, process: process))
        }
        let port = try PostgresTestServer.freePort()
        let configuration = folder.appendingPathComponent("nginx.conf")
        try """
            daemon off;
            worker_processes 1;
            pid \(folder.path)/nginx.pid;
            error_log \(folder.path)/error.log;
            events { worker_connections 512; }
            http {
                log_format upstream '$request_method $request_uri $upstream_addr $status';
                access_log \(folder.path)/access.log upstream;
                client_body_temp_path \(folder.path)/body;
                proxy_temp_path \(folder.path)/proxy;
                upstream nodes {
            \(nodes.map { "        server 127.0.0.1:\($0.port) max_fails=0;" }.joined(separator: "\n"))
                }
                server {
                    listen 127.0.0.1:\(port);
                    location / {
                        proxy_pass http://nodes;
                        proxy_set_header Host $http_host;
                        proxy_next_upstream error timeout;
                        proxy_connect_timeout 1s;
                    }
                }
            }
            """.write(to: configuration, atomically: true, encoding: .utf8)
        let nginx = Process()
        nginx.executableURL = URL(fileURLWithPath: Self.nginx)
        nginx.arguments = ["-p", folder.path, "-c", configuration.path, "-e", folder.appendingPathComponent("error.log").path]
        nginx.standardOutput = FileHandle.nullDevice
        nginx.standardError = FileHandle.nullDevice
        try nginx.run()
        let api = ServerAPI(base: "http://127.0.0.1:\(port)")
        try await api.waitFor("nginx to answer", within: .seconds(10)) { (try? await api.health()) != nil }
        return Cluster(database: database, leaseSeconds: leaseSeconds, nodes: nodes, folder: folder, loadBalancer: nginx, api: api)
    }

    func stop() async {
        for node in nodes where node.process.process.isRunning { _ = try? await node.process.terminate(within: .seconds(15)) }
        loadBalancer.terminate()
        loadBalancer.waitUntilExit()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Which node holds each running adventure's lease now.
    func holders() async throws -> [String: String] {
        Dictionary(uniqueKeysWithValues: try await database.rows(sqlite: "", postgres: """
            SELECT id, lease_holder FROM adventure WHERE status = 'running' AND lease_holder IS NOT NULL AND lease_until > now()
            """).map { ($0[0]!, $0[1]!) })
    }

    /// Every stored tick: adventure, tick, the node that stored it, when (unix seconds, database clock).
    func tickLog() async throws -> [(adventure: String, tick: Int, node: String, at: Double)] {
        try await database.rows(sqlite: "", postgres: """
            SELECT adventure, tick::text, node, extract(epoch FROM stored_at)::text FROM tick_log_with_ids t ORDER BY t.adventure, t.tick
            """).map { ($0[0]!, Int($0[1]!)!, $0[2]!, Double($0[3]!)!) }
    }

    /// Every lease taken: adventure, node, when (unix seconds, database clock).
    func leaseLog() async throws -> [(adventure: String, node: String, at: Double)] {
        try await database.rows(sqlite: "", postgres: """
            SELECT adventure, node, extract(epoch FROM taken_at)::text FROM lease_log ORDER BY id
            """).map { ($0[0]!, $0[1]!, Double($0[2]!)!) }
    }

    /// The database's clock now, unix seconds: what `tickLog` times are in.
    func databaseNow() async throws -> Double {
        Double(try await database.rows(sqlite: "", postgres: "SELECT extract(epoch FROM now())::text")[0][0]!)!
    }

    /// What nginx logged: method, path, the node's address it went to, status.
    func routed() throws -> [(method: String, path: String, upstream: String)] {
        let log = (try? String(contentsOf: folder.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
        return log.split(separator: "\n").map { line in
            let fields = line.split(separator: " ").map(String.init)
            return (fields[0], fields[1], fields.count > 2 ? fields[2] : "")
        }
    }
}
