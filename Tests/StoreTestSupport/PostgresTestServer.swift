import Foundation
import Logging
import PostgresNIO
import StorePostgres

/// A PostgreSQL server of the tests' own: `initdb` and `pg_ctl` (as the
/// `postgres` user when the tests run as root) into a temporary folder, on a free
/// loopback port, never the system's cluster. Started once per test process and
/// stopped when it exits; each test gets a database of its own.
///
/// Under `CI=true` a server that cannot start fails the tests. Elsewhere, without
/// PostgreSQL installed, the tests are skipped and say why.
public actor PostgresTestServer {
    public static let shared = PostgresTestServer()

    public static let password = "rangers-test-password"
    public static let isRequired = ProcessInfo.processInfo.environment["CI"] == "true"
    static let binaries: URL? = {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return versions.sorted { $0.compare($1, options: .numeric) == .orderedDescending }
            .map { root.appendingPathComponent($0).appendingPathComponent("bin") }
            .first { FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("initdb").path) }
    }()
    /// Whether the PostgreSQL tests run: PostgreSQL is installed, or CI demands it.
    public static let isAvailable = isRequired || binaries != nil
    public static let skipped = "PostgreSQL is not installed here (apt-get install postgresql): the PostgreSQL store tests are skipped"

    private var port: Int?
    /// How to start it again after `crash()`.
    private var startArguments: (pgCtl: String, arguments: [String], asPostgres: Bool)?

    /// A server of its own, for a test that stops and starts it (`shared` serves the rest).
    public init() {}

    /// The server's port, starting it the first time.
    public func start() throws -> Int {
        if let port { return port }
        guard let binaries = Self.binaries else {
            throw TestServerError("PostgreSQL is not installed: no initdb under /usr/lib/postgresql/*/bin")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rangers-pg-\(UUID().uuidString.prefix(8))")
        let data = directory.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let passwordFile = directory.appendingPathComponent("password")
        try Data(Self.password.utf8).write(to: passwordFile)
        let asPostgres = getuid() == 0
        if asPostgres {
            try run("/bin/chown", ["-R", "postgres:postgres", directory.path])
        }
        let port = try Self.freePort()
        try run(binaries.appendingPathComponent("initdb").path,
                ["-D", data.path, "-U", "postgres", "--auth=scram-sha-256", "--pwfile=\(passwordFile.path)",
                 "--encoding=UTF8", "--no-sync"], asPostgres: asPostgres)
        let pgCtl = binaries.appendingPathComponent("pg_ctl").path
        // Every test's database migrates at once, each migration one transaction
        // holding a lock on each table and index it makes or changes: more than
        // the default lock table (64 a connection) holds for them all together.
        let arguments = ["-D", data.path, "-l", directory.appendingPathComponent("server.log").path, "-w", "-t", "60",
                         "-o", "-p \(port) -k \(directory.path) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300 -c max_locks_per_transaction=256 -c shared_preload_libraries=pg_stat_statements",
                         "start"]
        try run(pgCtl, arguments, asPostgres: asPostgres)
        startArguments = (pgCtl, arguments, asPostgres)
        ServerStop.register(pgCtl: binaries.appendingPathComponent("pg_ctl").path, data: data.path, asPostgres: asPostgres,
                            directory: directory.path)
        self.port = port
        return port
    }

    /// Stops the server as a crash does (`pg_ctl stop -m immediate`): no
    /// checkpoint, every connection cut; what was committed is in its WAL.
    public func crash() throws {
        guard let started = startArguments else { throw TestServerError("the server was never started") }
        let data = started.arguments[1]
        try run(started.pgCtl, ["-D", data, "-m", "immediate", "stop"], asPostgres: started.asPostgres)
    }

    /// Starts it again after `crash()`, on the same port with the same data (it recovers from its WAL).
    public func restart() throws {
        guard let started = startArguments else { throw TestServerError("the server was never started") }
        try run(started.pgCtl, started.arguments, asPostgres: started.asPostgres)
    }

    /// A new, empty database on the server, and where to find it.
    public func freshDatabase() async throws -> PostgresLocation {
        try PostgresLocation(url: try await freshDatabaseURL())
    }

    /// The URL of a new, empty database on the server (it holds the password).
    public func freshDatabaseURL() async throws -> String {
        let port = try start()
        let name = "rangers_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        let logger = Logger(label: "tests.postgres")
        let connection = try await PostgresConnection.connect(
            configuration: .init(host: "127.0.0.1", port: port, username: "postgres", password: Self.password,
                                 database: "postgres", tls: .disable),
            id: 1, logger: logger)
        // The name is made here of letters and digits only.
        try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
        try await connection.close()
        return "postgres://postgres:\(Self.password)@127.0.0.1:\(port)/\(name)?sslmode=disable"
    }

    public static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        guard bound else { throw TestServerError("no free port on 127.0.0.1") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

public struct TestServerError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Runs a command, as the `postgres` user when asked, and waits for it; throws
/// with its output if it fails. The output goes through a file, not a pipe:
/// `pg_ctl start` leaves the server running with what it was given, and a pipe
/// would never reach its end. `posix_spawn` and `waitpid` rather than `Process`,
/// whose wait does not return here once the server it started lives on.
@discardableResult
public func run(_ executable: String, _ arguments: [String], asPostgres: Bool = false) throws -> String {
    let argv = asPostgres ? ["/usr/sbin/runuser", "-u", "postgres", "--", executable] + arguments : [executable] + arguments
    let outputFile = FileManager.default.temporaryDirectory.appendingPathComponent("rangers-pg-run-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: outputFile) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outputFile.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    var cArguments = argv.map { strdup($0) } + [nil]
    defer { cArguments.forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, argv[0], &actions, nil, &cArguments, environ)
    guard spawned == 0 else { throw TestServerError("cannot run \(argv[0]): error \(spawned)") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1, errno == EINTR {}
    let text = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
    let exited = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    guard exited == 0 else {
        throw TestServerError("\((executable as NSString).lastPathComponent) failed (\(exited)): \(text)")
    }
    return text
}

/// Stops the test server when the test process exits.
private enum ServerStop {
    /// Each server's stop command and folder; registered once per server, read at exit.
    nonisolated(unsafe) static var servers: [(command: [String], directory: String)] = []
    static let lock = NSLock()

    static func register(pgCtl: String, data: String, asPostgres: Bool, directory: String) {
        let command = (asPostgres ? ["/usr/sbin/runuser", "-u", "postgres", "--"] : []) + [pgCtl, "-D", data, "-m", "immediate", "stop"]
        let first = lock.withLock {
            servers.append((command, directory))
            return servers.count == 1
        }
        guard first else { return }
        atexit {
            for server in ServerStop.lock.withLock({ ServerStop.servers }) {
                _ = try? run(server.command[0], Array(server.command.dropFirst()))
                try? FileManager.default.removeItem(atPath: server.directory)
            }
        }
    }
}

/// Runs `body`, then closes the store and waits for it, whether `body` threw or not.
public func closing<Value>(_ store: PostgresStore, _ body: () async throws -> Value) async throws -> Value {
    do {
        let value = try await body()
        await store.close()
        return value
    } catch {
        await store.close()
        throw error
    }
}
