// The server under load: N running adventures of 3 heroes at a one-second tick,
// each hero's player with a Live Activity, played by the real Ticker and sent by
// the real Dispatcher through libcurl to the APNs simulator, over one SQLite file
// or, with --database, a PostgreSQL database (`Benchmarks/server-load.sh` runs both).
//
//   swift run -c release ServerLoadBench [--adventures 10000] [--seconds 60] [--warm-up 10] [--tick-interval 1]
//                                        [--batch-size 500] [--ticker-only] [--database postgres://…]
//
// Prints how late ticks are stored after their game time (p50/p99/max), ticks and
// pushes per second against what the load asks for, the process's CPU (the
// simulator runs in the same process, so its share is included), PostgreSQL's
// (every `postgres` process's, from /proc) and memory.
import APNs
import APNsCurl
import APNsSimulator
import Catalog
import Foundation
import Game
import Logging
import Metrics
import PushPolicy
import Server
import ServiceLifecycle
import Store
import Vocabulary

struct Options {
    var adventures = 10_000
    var seconds = 60
    var warmUp = 10
    var tickInterval = 1
    var batchSize = Ticker.Settings().batchSize
    /// Without the dispatcher: what the ticker and the store alone keep up with.
    var tickerOnly = false
    /// A PostgreSQL database to run on instead of a SQLite file; it should be empty.
    var databaseURL: String?

    static func parse() throws -> Options {
        var options = Options()
        var arguments = CommandLine.arguments.dropFirst().makeIterator()
        while let argument = arguments.next() {
            if argument == "--ticker-only" {
                options.tickerOnly = true
                continue
            }
            if argument == "--database" {
                guard let url = arguments.next() else { throw BenchError("--database needs a postgres:// URL") }
                options.databaseURL = url
                continue
            }
            guard let text = arguments.next(), let value = Int(text), value > 0 else {
                throw BenchError("\(argument) needs a positive number")
            }
            switch argument {
            case "--adventures": options.adventures = value
            case "--seconds": options.seconds = value
            case "--warm-up": options.warmUp = value
            case "--batch-size": options.batchSize = value
            case "--tick-interval":
                guard AdventureSetup.tickIntervals.contains(value) else {
                    throw BenchError("--tick-interval must be \(AdventureSetup.tickIntervals.lowerBound)…\(AdventureSetup.tickIntervals.upperBound) seconds")
                }
                options.tickInterval = value
            default: throw BenchError("unknown option \(argument)")
            }
        }
        return options
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

LoggingSystem.bootstrap { label in
    var handler = StreamLogHandler.standardError(label: label)
    handler.logLevel = .error
    return handler
}
let options: Options
do { options = try Options.parse() } catch {
    FileHandle.standardError.write(Data("ServerLoadBench: \(error)\n".utf8))
    exit(2)
}

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("server-load-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let configuration = ServerConfiguration(
    gameMasterKey: String(repeating: "k", count: 32), databasePath: directory.appendingPathComponent("load.sqlite").path,
    databaseURL: options.databaseURL, port: 0, contentDirectory: URL(fileURLWithPath: "Content", isDirectory: true))
let resources = try await ServerResources.open(configuration)
let store = resources.store
let content = resources.content
let route = content.game.routes[0].id
let heroes = [HeroID("power-panda"), HeroID("egghead"), HeroID("spouty")]

// The APNs simulator in this process, reached through libcurl over TLS and HTTP/2.
// It counts every push but keeps only the last thousand, so that the memory
// reported is the server's rather than the simulator's record of what it received.
let simulator = try await APNsSimulator.start(APNsSimulatorConfiguration(recordLimit: 1_000))
let key = APNsSigningKey.generate(keyID: "LOADKEY001", teamID: "LOADTEAM01").key
try simulator.registerProviderKey(key)
let apns = APNsClient(environment: .custom(simulator.baseURL), key: key,
                      transport: try CurlHTTP2Transport(configuration: CurlTransportConfiguration(caFile: simulator.certificateFile)))
let lags = LagRecorder()
let services: [any Service] = (options.tickerOnly ? [] : [Dispatcher(store: store, client: apns)]) + [
    Ticker(store: store, content: content, policy: configuration.pushPolicy, bundleID: configuration.bundleID,
           settings: Ticker.Settings(batchSize: options.batchSize), metrics: lags),
]
let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: services, logger: Logger(label: "bench")))

// Players, parties and Live Activities, made through the store as the API would,
// before the ticker runs. Every adventure starts at the same moment, just after
// the setup is expected to end (setting one up takes a dozen writes), so that the
// measurement sees the steady load of N adventures rather than a backlog of the
// ticks missed during the setup. Making them while the ticker already runs took
// minutes: each of those writes waits its turn behind the ticker's commits.
let plannedStart = Int(Date().timeIntervalSince1970) + 5 + options.adventures * 15 / 1000
/// Tells this run's activities and tokens from those of other bench processes on the same database.
let run = UInt32.random(in: 0...UInt32.max)
func setUpAdventures() async throws {
    let setupStart = ContinuousClock.now
    print("setting up \(options.adventures) adventures of \(heroes.count) heroes on \(configuration.store) …")
    // Four at a time: PostgreSQL waits for each commit's flush, and parallel
    // transactions share those waits; SQLite queues them behind its one writer.
    try await withThrowingTaskGroup(of: Void.self) { group in
        for worker in 0..<4 {
            group.addTask {
                for index in stride(from: worker, to: options.adventures, by: 4) { try await setUpAdventure(index) }
            }
        }
        try await group.waitForAll()
    }
    print("set up in \(ContinuousClock.now - setupStart)")
}

func setUpAdventure(_ index: Int) async throws {
    var players: [PlayerID] = []
    for hero in heroes {
        let player = try await store.createPlayer(name: "p\(index)-\(hero.rawValue)").player.id
        _ = try await store.pickHeroes([hero], for: player)
        players.append(player)
    }
    let party = try await store.createParty(name: "party \(index)", by: players[0], hero: heroes[0])
    for (player, hero) in zip(players.dropFirst(), heroes.dropFirst()) {
        _ = try await store.joinParty(inviteCode: party.inviteCode.rawValue, player: player, hero: hero)
    }
    let roster = zip(players, heroes).map { PartyMember(player: $0, hero: $1) }
    let setup = AdventureSetup(route: route, party: roster, tickInterval: options.tickInterval, timeLimit: AdventureSetup.longestTimeLimit,
                               seed: UInt64(index))
    let adventure = try Adventure(setup: setup, content: content.game)
    let stored = try await store.startAdventure(party: party.id, setup: setup, state: adventure.start(),
                                                startedAt: plannedStart, contentVersion: content.version,
                                                outbox: [])
    for (slot, member) in roster.enumerated() {
        let token = try PushToken(hex: String(format: "%08x%02x%08x", index, slot, run) + String(repeating: "ab", count: 23))
        _ = try await store.registerLiveActivity(activityID: ActivityID("\(run)-a\(index)-\(slot)"), player: member.player,
                                                 adventure: stored.id, hero: member.hero, token: token,
                                                 frequentUpdates: slot == 0, locale: "en-US")
    }
}

struct Sample {
    var at: ContinuousClock.Instant
    var cpu: Double
    var postgresCPU: Double
    var ticks: Int
    var pushes: Int
    var database: DatabaseFigures?
}

/// PostgreSQL's own counters, read with `psql` (statements need the
/// `pg_stat_statements` extension; without it they are left out).
struct DatabaseFigures {
    var statements: Double?
    var walBytes: Double
    var leasesTaken: Double
}
func databaseFigures() -> DatabaseFigures? {
    guard let url = options.databaseURL else { return nil }
    let psql = Process()
    psql.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    psql.arguments = ["psql", url, "-Atc", """
        SELECT (SELECT sum(calls) FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())),
               pg_current_wal_lsn() - '0/0', (SELECT count(*) FROM lease_log)
        """]
    let output = Pipe()
    psql.standardOutput = output
    psql.standardError = FileHandle.nullDevice
    guard (try? psql.run()) != nil else { return nil }
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    psql.waitUntilExit()
    let fields = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|", omittingEmptySubsequences: false)
    guard fields.count == 3, let wal = Double(fields[1]), let leases = Double(fields[2]) else { return nil }
    return DatabaseFigures(statements: Double(fields[0]), walBytes: wal, leasesTaken: leases)
}
func sample() -> Sample {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1_000_000
    return Sample(at: .now, cpu: cpu, postgresCPU: postgresCPUSeconds(), ticks: lags.count, pushes: simulator.acceptedCount,
                  database: databaseFigures())
}

/// User and system CPU of every process named `postgres` (the server and its
/// backends), from /proc/<pid>/stat: fields 14 and 15, in clock ticks.
func postgresCPUSeconds() -> Double {
    let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
    let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.filter { $0.allSatisfy(\.isNumber) } ?? []
    var total = 0.0
    for pid in pids {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")"),
              stat[stat.index(after: open)..<close] == "postgres" else { continue }
        // After the name: state is field 3, so utime (14) and stime (15) are the 12th and 13th.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
        total += (user + system) / ticksPerSecond
    }
    return total
}
func memory(_ field: String) -> String {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
    let kB = Double(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    return String(format: "%.0f MiB", kB / 1024)
}

try await withThrowingTaskGroup(of: Void.self) { tasks in
    try await setUpAdventures()
    let behind = Int(Date().timeIntervalSince1970) - plannedStart
    if behind > 0 { print("the setup ended \(behind) s after the adventures started") }
    tasks.addTask { try await group.run() }
    try await Task.sleep(for: .seconds(max(0, -behind) + options.warmUp))
    lags.reset()
    let first = sample()
    try await Task.sleep(for: .seconds(options.seconds))
    let last = sample()
    await group.triggerGracefulShutdown()
    try await tasks.waitForAll()

    let wall = Double((last.at - first.at).components.seconds) + Double((last.at - first.at).components.attoseconds) / 1e18
    let lag = lags.sortedMilliseconds()
    func percentile(_ p: Double) -> String {
        lag.isEmpty ? "-" : String(format: "%.0f ms", lag[min(lag.count - 1, Int(Double(lag.count) * p))])
    }
    print("""
        \(options.adventures) adventures × \(heroes.count) heroes at a \(options.tickInterval) s tick, batches of \(options.batchSize), \(options.seconds) s measured after \(options.warmUp) s\(options.tickerOnly ? ", ticker only" : "")
        ticks stored      \(String(format: "%.0f", Double(last.ticks - first.ticks) / wall))/s of \(options.adventures / options.tickInterval)/s due
        tick lag          p50 \(percentile(0.5)) · p99 \(percentile(0.99)) · max \(lag.last.map { String(format: "%.0f ms", $0) } ?? "-")
        pushes delivered  \(String(format: "%.0f", Double(last.pushes - first.pushes) / wall))/s
        CPU               \(String(format: "%.2f", (last.cpu - first.cpu) / wall)) cores (ticker, dispatcher, \(options.databaseURL == nil ? "SQLite and " : "")the simulator)\(options.databaseURL == nil ? "" : String(format: "\nPostgreSQL CPU    %.2f cores (every postgres process)", (last.postgresCPU - first.postgresCPU) / wall))
        memory            \(memory("VmRSS")) resident, \(memory("VmHWM")) peak
        """)
    if let before = first.database, let after = last.database {
        // Every node of a cluster reads the same database counters: per tick means
        // per tick stored by any node.
        let ticks = max(1, Double(last.ticks - first.ticks))
        let statements = zip([before.statements], [after.statements]).compactMap { a, b in a.flatMap { a in b.map { $0 - a } } }.first
        print("""
            database          \(statements.map { String(format: "%.0f statements/s", $0 / wall) } ?? "statements not counted (no pg_stat_statements)") · \(String(format: "%.2f MB/s WAL", (after.walBytes - before.walBytes) / wall / 1e6)) · \(String(format: "%.1f", (after.leasesTaken - before.leasesTaken) / wall * 60)) leases taken/min
            this node's ticks \(String(format: "%.4f", (last.cpu - first.cpu) / ticks)) CPU-s per adventure-tick
            """)
    }
}
await apns.shutdown()
try await simulator.shutdown()
await resources.close()

/// Keeps every tick's lag (`rangers_tick_lag_seconds`); other metrics are dropped.
final class LagRecorder: MetricsFactory, @unchecked Sendable {
    private let lock = NSLock()
    private var nanoseconds: [Int64] = []

    var count: Int { lock.withLock { nanoseconds.count } }
    func reset() { lock.withLock { nanoseconds.removeAll() } }
    func sortedMilliseconds() -> [Double] { lock.withLock { nanoseconds.sorted().map { Double($0) / 1e6 } } }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        label == "rangers_tick_lag_seconds" ? LagTimer(recorder: self) : NOOPMetricsHandler.instance
    }
    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler { NOOPMetricsHandler.instance }
    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        NOOPMetricsHandler.instance
    }
    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        NOOPMetricsHandler.instance
    }
    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}

    fileprivate func record(_ value: Int64) { lock.withLock { nanoseconds.append(value) } }
}

private final class LagTimer: TimerHandler, @unchecked Sendable {
    init(recorder: LagRecorder) { self.recorder = recorder }
    let recorder: LagRecorder
    func recordNanoseconds(_ duration: Int64) { recorder.record(duration) }
}
