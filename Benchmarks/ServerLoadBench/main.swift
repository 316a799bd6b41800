// The server under load: N running adventures of 3 heroes at a one-second tick,
// each hero's player with a Live Activity, played by the real Ticker and sent by
// the real Dispatcher through libcurl to an APNs simulator, over one SQLite file
// or, with --database, a PostgreSQL database (`Benchmarks/server-load.sh` runs both).
//
//   swift run -c release ServerLoadBench [--adventures 10000] [--seconds 60] [--warm-up 10] [--tick-interval 1]
//                                        [--batch-size 500] [--gather-ms 100] [--in-flight 512] [--ticker-only]
//                                        [--database postgres://…]
//                                        [--apns-url https://… --management-url https://… --ca-file F --key-file F
//                                         --key-id ID --team-id ID]
//                                        [--followers N --channels on|off] [--bytes-dir DIR] [--analyze on|off]
//                                        [--endpoint-pid PID]
//
// With --followers, every adventure is followed by N players outside its party,
// in four languages: with --channels on (the default) their apps are on iOS 18
// and listen on the adventure's channel of their language (one broadcast per
// channel per update, whatever N); with --channels off they are on iOS 17 and
// each has a Live Activity of its own (a push per follower per update).
//
// Without --apns-url the simulator runs in this process (its CPU counted with the
// server's); with it, pushes go to that endpoint (`rangers apns-sim` in a process
// of its own), so the CPU is the server's alone. --endpoint-pid names that
// process, whose CPU is then shown too: the three (server, database, endpoint)
// share the machine's cores, so their sum per adventure-tick says how many
// adventures the machine holds.
//
// Prints how late ticks are stored after their game time (p50/p99/max), how late
// pushes are accepted by APNs after the tick that decided them (p50/p99/max), the
// outbox's backlog as the window starts and ends, whether that is on time (below),
// ticks and pushes per second against what the load asks for, the process's CPU,
// PostgreSQL's (every `postgres` process's, from /proc), memory, and per
// adventure-tick: CPU, bytes of write-ahead log and statements.
//
// On time: at least 99 % of the due ticks stored, tick lag p99 under 0.5 s, push
// lag p99 under 1 s, and an outbox no fuller at the end than at the start (within
// one second of the policy's pushes, so a batch in flight is not growth).
//
// With --bytes-dir (for `Benchmarks/tick-bytes.sh`, which says where the bytes
// go): the measured window's WAL positions and ticks are written to DIR/window;
// on PostgreSQL `pg_stat_statements` is reset as the window starts, so what it
// holds afterwards is the window's; on SQLite the database and its WAL are
// copied to DIR as the window ends, while the WAL still holds its last frames.
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
import Services
import Store
import Vocabulary

struct Options {
    var adventures = 10_000
    var seconds = 60
    var warmUp = 10
    var tickInterval = 1
    var batchSize = Ticker.Settings().batchSize
    /// The ticker's pause after a pass that found less than a batch, in milliseconds.
    var gatherMilliseconds = Int(Ticker.Settings().gatherInterval / .milliseconds(1))
    /// The dispatcher's window: pushes claimed and not yet answered.
    var inFlight = Dispatcher.Settings().maximumInFlight
    /// Without the dispatcher: what the ticker and the store alone keep up with.
    var tickerOnly = false
    /// A PostgreSQL database to run on instead of a SQLite file; it should be empty.
    var databaseURL: String?
    /// An APNs endpoint in another process, and what it takes to reach it.
    var apnsURL: String?
    var caFile: String?
    var keyFile: String?
    var keyID = "LOADKEY001"
    var teamID = "LOADTEAM01"
    var managementURL: String?
    /// The APNs endpoint's process, whose CPU is reported beside the server's.
    var endpointPID: Int?
    /// Players outside each adventure's party who follow it.
    var followers = 0
    /// Followers on broadcast channels (iOS 18), or each with their own activity.
    var channels = true
    /// Where the window's WAL positions (and, on SQLite, a copy of the database) go.
    var bytesDirectory: String?
    /// PostgreSQL: the tables analyzed after the warm-up, as autovacuum would have
    /// by then on a server that has run a while (off: the statistics the setup left).
    var analyze = true

    static func parse() throws -> Options {
        var options = Options()
        var arguments = CommandLine.arguments.dropFirst().makeIterator()
        while let argument = arguments.next() {
            if argument == "--ticker-only" {
                options.tickerOnly = true
                continue
            }
            if argument == "--channels" || argument == "--analyze" {
                let field: WritableKeyPath<Options, Bool> = argument == "--channels" ? \.channels : \.analyze
                switch arguments.next() {
                case "on": options[keyPath: field] = true
                case "off": options[keyPath: field] = false
                default: throw BenchError("\(argument) needs on or off")
                }
                continue
            }
            let textOptions: [String: WritableKeyPath<Options, String?>] = [
                "--database": \.databaseURL, "--apns-url": \.apnsURL, "--ca-file": \.caFile, "--key-file": \.keyFile,
                "--management-url": \.managementURL, "--bytes-dir": \.bytesDirectory,
            ]
            if let field = textOptions[argument] {
                guard let value = arguments.next(), !value.isEmpty else { throw BenchError("\(argument) needs a value") }
                options[keyPath: field] = value
                continue
            }
            if argument == "--key-id" || argument == "--team-id" {
                guard let value = arguments.next(), !value.isEmpty else { throw BenchError("\(argument) needs a value") }
                if argument == "--key-id" { options.keyID = value } else { options.teamID = value }
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
            case "--gather-ms": options.gatherMilliseconds = value
            case "--in-flight": options.inFlight = value
            case "--followers": options.followers = value
            case "--endpoint-pid": options.endpointPID = value
            case "--tick-interval":
                guard AdventureSetup.tickIntervals.contains(value) else {
                    throw BenchError("--tick-interval must be \(AdventureSetup.tickIntervals.lowerBound)…\(AdventureSetup.tickIntervals.upperBound) seconds")
                }
                options.tickInterval = value
            default: throw BenchError("unknown option \(argument)")
            }
        }
        if options.apnsURL != nil, options.keyFile == nil {
            throw BenchError("--apns-url needs --key-file (and --key-id, --team-id) of a key the endpoint trusts")
        }
        // A pid that names no process would be reported as an endpoint that costs nothing.
        if let pid = options.endpointPID, !FileManager.default.fileExists(atPath: "/proc/\(pid)/stat") {
            throw BenchError("--endpoint-pid \(pid): no such process")
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
    gameMasterKey: String(repeating: "k", count: 32), apns: options.apnsURL == nil ? .simulator : .custom, databasePath: directory.appendingPathComponent("load.sqlite").path,
    databaseURL: options.databaseURL, port: 0, contentDirectory: URL(fileURLWithPath: "Content", isDirectory: true),
    followers: FollowerSettings(tokenFollowersPerAdventure: max(options.followers, FollowerSettings().tokenFollowersPerAdventure)),
    ticker: Ticker.Settings(batchSize: options.batchSize, gatherInterval: .milliseconds(options.gatherMilliseconds)), dispatcher: Dispatcher.Settings(maximumInFlight: options.inFlight))
let resources = try await ServerResources.open(configuration)
let store = resources.store
let content = resources.content
let route = content.game.routes[0].id
let heroes = [HeroID("power-panda"), HeroID("egghead"), HeroID("spouty")]

let lags = LagRecorder()
let residentBeforeSetUp = residentBytes()
// The APNs endpoint: another process's (--apns-url), or a simulator in this one.
// The in-process simulator keeps only its last thousand pushes, so that the
// memory reported is the server's rather than its record of what it received.
let simulator: APNsSimulator?
let key: APNsSigningKey
let apnsURL: String
let managementURL: String?
let caFile: URL?
if let url = options.apnsURL, let keyFile = options.keyFile {
    simulator = nil
    key = try APNsSigningKey(contentsOf: URL(fileURLWithPath: keyFile), keyID: options.keyID, teamID: options.teamID)
    apnsURL = url
    managementURL = options.managementURL
    caFile = options.caFile.map { URL(fileURLWithPath: $0) }
} else {
    let started = try await APNsSimulator.start(APNsSimulatorConfiguration(recordLimit: 1_000))
    key = APNsSigningKey.generate(keyID: options.keyID, teamID: options.teamID).key
    try started.registerProviderKey(key)
    simulator = started
    apnsURL = started.baseURL
    managementURL = started.managementBaseURL
    caFile = started.certificateFile
}
let apns = APNsClient(environment: .custom(apnsURL, management: managementURL), key: key,
                      transport: try CurlHTTP2Transport(configuration: CurlTransportConfiguration(caFile: caFile)),
                      metrics: lags)
resources.followerChannels.use(apns)
// The services `rangers serve` runs, as it wires them; with --ticker-only, no dispatcher.
let services = backgroundServices(configuration, resources: resources, apns: apns, metrics: lags)
    .filter { !(options.tickerOnly && $0 is Dispatcher) }
let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: services, logger: Logger(label: "bench")))

// Players, parties and Live Activities, made through the store as the API would,
// before the ticker runs. Every adventure starts at the same moment, just after
// the setup is expected to end (setting one up takes a dozen writes), so that the
// measurement sees the steady load of N adventures rather than a backlog of the
// ticks missed during the setup. Making them while the ticker already runs took
// minutes: each of those writes waits its turn behind the ticker's commits.
// A follow is a write (and per token a second for the activity): a millisecond or two each.
let plannedStart = Int(Date().timeIntervalSince1970) + 5 + options.adventures * 15 / 1000
    + options.adventures * options.followers * (options.channels ? 1 : 2) / 1000
/// Tells this run's activities and tokens from those of other bench processes on the same database.
let run = UInt32.random(in: 0...UInt32.max)
/// The followers: the same players follow every adventure (a player may follow
/// many), each with a device whose push-to-start token wakes them (`--channels off`).
let followerLanguages = ["en", "vi", "ko", "zh-Hans"]
func makeFans() async throws -> [(player: PlayerID, device: DeviceID)] {
    var fans: [(player: PlayerID, device: DeviceID)] = []
    for index in 0..<options.followers {
        let player = try await store.createPlayer(name: "fan \(index)", at: Date()).player.id
        let device = DeviceID("\(run)-fan-device-\(index)")
        try await store.registerPushToStartToken(
            deviceID: device, player: player,
            token: try PushToken(hex: String(format: "%08x%08x", index, run) + String(repeating: "cd", count: 24)),
            locale: followerLanguages[index % followerLanguages.count], at: Date())
        fans.append((player, device))
    }
    return fans
}
let fans = try await makeFans()

func setUpAdventures() async throws {
    let setupStart = ContinuousClock.now
    print("setting up \(options.adventures) adventures of \(heroes.count) heroes on \(configuration.store)"
          + (options.followers > 0 ? ", each followed by \(options.followers) players \(options.channels ? "on channels (iOS 18)" : "with their own activities (iOS 17)")" : "") + " …")
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
        let player = try await store.createPlayer(name: "p\(index)-\(hero.rawValue)", at: Date()).player.id
        _ = try await store.pickHeroes([hero], for: player)
        players.append(player)
    }
    let party = try await store.createParty(name: "party \(index)", by: players[0], hero: heroes[0], at: Date())
    for (player, hero) in zip(players.dropFirst(), heroes.dropFirst()) {
        _ = try await store.joinParty(inviteCode: party.inviteCode.rawValue, player: player, hero: hero, at: Date())
    }
    let roster = zip(players, heroes).map { PartyMember(player: $0, hero: $1) }
    let setup = AdventureSetup(route: route, party: roster, tickInterval: options.tickInterval, timeLimit: AdventureSetup.longestTimeLimit,
                               seed: UInt64(index))
    let adventure = try Adventure(setup: setup, content: content.game)
    let stored = try await store.startAdventure(id: .random(), party: party.id, setup: setup, state: adventure.start(),
                                                startedAt: plannedStart, contentVersion: content.version,
                                                followCode: options.followers > 0 ? .random() : nil, outbox: [], at: Date())
    for (slot, member) in roster.enumerated() {
        let token = try PushToken(hex: String(format: "%08x%02x%08x", index, slot, run) + String(repeating: "ab", count: 23))
        _ = try await store.registerLiveActivity(activityID: ActivityID("\(run)-a\(index)-\(slot)"), player: member.player,
                                                 adventure: stored.id, hero: member.hero, token: token,
                                                 frequentUpdates: slot == 0, locale: "en-US", at: Date())
    }
    try await setUpFollowers(of: stored, index: index)
}

/// On channels: the first follower of each language makes its channel on APNs, as
/// the API would. Per token: each follower's activity registers its own token, as
/// the app does once its push-to-start arrives; the push-to-start itself is queued
/// already expired (the dispatcher drops it at its claim), so that the measurement
/// sees the steady state rather than 150,000 starts.
func setUpFollowers(of adventure: StoredAdventure, index: Int) async throws {
    for (slot, fan) in fans.enumerated() {
        let language = followerLanguages[slot % followerLanguages.count]
        let how: FollowRequest.How = options.channels ? .channel : .pushToStart(device: fan.device) { _, device in
            OutboxMessage(target: .pushToStart(device), pushType: .liveactivity, topic: configuration.liveActivityTopic,
                          priority: .high, expiration: 1, payload: Data(#"{"aps":{}}"#.utf8), reason: "bench: already started",
                          hasAlert: true, isEnd: false, supersedable: false)
        }
        let following = try await store.follow(FollowRequest(
            adventure: adventure.id, player: fan.player, code: adventure.followCode?.rawValue ?? "", language: language, how: how,
            tokenFollowersPerAdventure: configuration.followers.tokenFollowersPerAdventure,
            channelLimit: configuration.followers.channelLimit, storagePolicy: configuration.followers.channelStoragePolicy), at: Date())
        if case .create(let creation)? = following.channel {
            guard case .open = await resources.followerChannels.make(creation, bundleID: configuration.bundleID) else {
                throw BenchError("the channel of adventure \(adventure.id) for \(language) was not made")
            }
        }
        if !options.channels {
            let token = try PushToken(hex: String(format: "%08x%04x%08x", index, slot, run) + String(repeating: "ef", count: 22))
            _ = try await store.registerLiveActivity(activityID: ActivityID("\(run)-f\(index)-\(slot)"), player: fan.player,
                                                     adventure: adventure.id, hero: nil, token: token,
                                                     frequentUpdates: slot.isMultiple(of: 2), locale: language, at: Date())
        }
    }
}

/// What the policy asks for per adventure-tick in this load, worked out by playing
/// twenty of the bench's adventures (same route, seeds 0…19) through the tick
/// pipeline: the members' pushes and the followers'.
func askedPerAdventureTick() throws -> (members: Double, followers: Double) {
    var members = 0, followers = 0, ticks = 0
    for seed in 0..<20 {
        let roster = heroes.enumerated().map { PartyMember(player: PlayerID("p\($0.offset)"), hero: $0.element) }
        let setup = AdventureSetup(route: route, party: roster, tickInterval: options.tickInterval,
                                   timeLimit: AdventureSetup.longestTimeLimit, seed: UInt64(seed))
        let pipeline = try TickPipeline(adventureID: AdventureID("asked-\(seed)"), setup: setup, startedAt: 0,
                                        content: content.game, strings: content.strings, configuration: configuration.pushPolicy)
        let recipients = roster.enumerated().map {
            LiveActivityRecipient(activityID: ActivityID("m\($0.offset)"), player: $0.element.player, hero: $0.element.hero,
                                  frequentUpdates: $0.offset == 0, language: "en")
        }
        let languages = followerLanguages.prefix(min(options.followers, followerLanguages.count))
        let audience = options.followers == 0 ? Followers.none : options.channels
            ? Followers(channels: languages.map {
                FollowerChannelRecipient(channel: FollowerChannelID($0), language: $0,
                                         storagePolicy: configuration.followers.channelStoragePolicy) })
            : Followers(activities: (0..<options.followers).map {
                FollowerActivityRecipient(activityID: ActivityID("f\($0)"), player: PlayerID("f\($0)"),
                                          frequentUpdates: $0.isMultiple(of: 2), language: followerLanguages[$0 % 4]) })
        let memberIDs = Set(recipients.map(\.activityID))
        try pipeline.play(commands: [], recipients: recipients, followers: audience) { outcome in
            ticks += 1
            for decision in outcome.decisions {
                if case .liveActivity(let id) = decision.target, memberIDs.contains(id) { members += 1 } else { followers += 1 }
            }
        }
    }
    return (Double(members) / Double(ticks), Double(followers) / Double(ticks))
}

struct Sample {
    var at: ContinuousClock.Instant
    var cpu: Double
    var postgresCPU: Double
    var endpointCPU: Double
    var ticks: Int
    var pushes: Int
    /// Pushes queued and not yet answered (pending or being sent).
    var backlog: Int?
    var broadcasts: Int
    var activity: StoreActivity?
    var leasesTaken: Double?
}

/// Leases taken so far (PostgreSQL's `lease_log`, read with `psql`): how often
/// adventures moved between nodes.
func leasesTaken() -> Double? {
    psql("SELECT count(*) FROM lease_log").flatMap(Double.init)
}
/// One statement's answer, read with `psql` (nil on SQLite or when it fails).
func psql(_ sql: String) -> String? {
    guard let url = options.databaseURL else { return nil }
    let psql = Process()
    psql.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    psql.arguments = ["psql", url, "-Atc", sql]
    let output = Pipe()
    psql.standardOutput = output
    psql.standardError = FileHandle.nullDevice
    guard (try? psql.run()) != nil else { return nil }
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    psql.waitUntilExit()
    return psql.terminationStatus == 0 ? text.trimmingCharacters(in: .whitespacesAndNewlines) : nil
}

/// The window's bounds for `Benchmarks/tick-bytes.sh` (see --bytes-dir).
func markWindow(start: Sample?, end: Sample?) {
    guard let folder = options.bytesDirectory else { return }
    if end == nil {
        _ = psql("SELECT pg_stat_statements_reset()")
        return
    }
    if options.databaseURL == nil {
        // The WAL first: a checkpoint that runs meanwhile writes the database, not the WAL's frames.
        for suffix in ["-wal", ""] {
            try? FileManager.default.copyItem(atPath: configuration.databasePath + suffix,
                                              toPath: folder + "/load.sqlite" + suffix)
        }
    }
    guard let start, let end else { return }
    let line = "\(start.activity?.logBytesWritten ?? 0) \(end.activity?.logBytesWritten ?? 0) \(end.ticks - start.ticks)\n"
    try? Data(line.utf8).write(to: URL(fileURLWithPath: folder + "/window"))
}
func sample() async -> Sample {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1_000_000
    let activity = try? await (store as? any StoreActivityReporting)?.activity()
    let backlog = try? await store.pendingOutboxCount()
    return Sample(at: .now, cpu: cpu, postgresCPU: cpuSeconds { name, _ in name == "postgres" },
                  endpointCPU: options.endpointPID.map { endpoint in cpuSeconds { _, pid in pid == String(endpoint) } } ?? 0,
                  ticks: lags.count, pushes: lags.delivered,
                  backlog: backlog, broadcasts: lags.broadcasts, activity: activity, leasesTaken: leasesTaken())
}

/// User and system CPU of every process that `counts` (by name and pid): every
/// `postgres` process (the server and its backends), or the APNs endpoint's.
/// From /proc/<pid>/stat: fields 14 and 15, in clock ticks.
func cpuSeconds(of counts: (_ name: Substring, _ pid: String) -> Bool) -> Double {
    let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
    let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.filter { $0.allSatisfy(\.isNumber) } ?? []
    var total = 0.0
    for pid in pids {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")"),
              counts(stat[stat.index(after: open)..<close], pid) else { continue }
        // After the name: state is field 3, so utime (14) and stime (15) are the 12th and 13th.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
        total += (user + system) / ticksPerSecond
    }
    return total
}
func residentBytes() -> Double {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return (Double(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) * 1024
}
func memory(_ field: String) -> String {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
    let kB = Double(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    return String(format: "%.0f MiB", kB / 1024)
}

/// The size of the SQLite file's WAL (nil on PostgreSQL).
func walFileBytes() -> Int64? {
    let attributes = try? FileManager.default.attributesOfItem(atPath: configuration.databasePath + "-wal")
    return (attributes?[.size] as? NSNumber)?.int64Value
}

try await withThrowingTaskGroup(of: Void.self) { tasks in
    try await setUpAdventures()
    let behind = Int(Date().timeIntervalSince1970) - plannedStart
    if behind > 0 { print("the setup ended \(behind) s after the adventures started") }
    tasks.addTask { try await group.run() }
    try await Task.sleep(for: .seconds(max(0, -behind) + options.warmUp))
    // A server that has run a while has its tables' statistics from autovacuum
    // (within a minute of a table's growing by a tenth): the window measures the
    // plans made with them, not those made for the tables as the setup left them,
    // before the first push. After the warm-up, so that the outbox and the logs
    // are not analyzed empty.
    if options.databaseURL != nil, options.analyze, psql("ANALYZE") == nil {
        print("ANALYZE failed: the plans use older statistics")
    }
    lags.reset()
    markWindow(start: nil, end: nil)
    let first = await sample()
    // The WAL file's size each second: it must start over, not grow with the run.
    var largestWAL: Int64 = 0
    for _ in 0..<options.seconds {
        try await Task.sleep(for: .seconds(1))
        largestWAL = max(largestWAL, walFileBytes() ?? 0)
    }
    let last = await sample()
    markWindow(start: first, end: last)
    await group.triggerGracefulShutdown()
    try await tasks.waitForAll()

    let wall = Double((last.at - first.at).components.seconds) + Double((last.at - first.at).components.attoseconds) / 1e18
    let lag = lags.sortedMilliseconds()
    let pushLag = lags.sortedPushMilliseconds()
    func value(_ sorted: [Double], _ p: Double) -> Double? {
        sorted.isEmpty ? nil : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }
    func percentile(_ p: Double, of sorted: [Double] = lag) -> String {
        value(sorted, p).map { String(format: "%.0f ms", $0) } ?? "-"
    }
    let due = Double(options.adventures) / Double(options.tickInterval)
    let stored = Double(last.ticks - first.ticks) / wall
    let backlog = (first.backlog.map(String.init) ?? "?") + " at the start, " + (last.backlog.map(String.init) ?? "?") + " at the end"
    let pushesPerSecond = Double(last.pushes - first.pushes) / wall
    var late: [String] = []
    if stored < 0.99 * due { late.append(String(format: "%.1f %% of the due ticks stored", stored / due * 100)) }
    if (value(lag, 0.99) ?? .infinity) >= 500 { late.append("tick lag p99 \(percentile(0.99))") }
    if !options.tickerOnly, (value(pushLag, 0.99) ?? .infinity) >= 1000 { late.append("push lag p99 \(percentile(0.99, of: pushLag))") }
    if !options.tickerOnly, let start = first.backlog, let end = last.backlog, Double(end - start) > max(pushesPerSecond, 1) {
        late.append("the outbox grew by \(end - start)")
    }
    print("""
        \(options.adventures) adventures × \(heroes.count) heroes at a \(options.tickInterval) s tick, batches of \(options.batchSize) gathered \(options.gatherMilliseconds) ms, \(options.inFlight) pushes in flight, \(options.seconds) s measured after \(options.warmUp) s\(options.tickerOnly ? ", ticker only" : "")
        ticks stored      \(String(format: "%.0f", stored))/s of \(String(format: "%.0f", due))/s due
        tick lag          p50 \(percentile(0.5)) · p99 \(percentile(0.99)) · max \(lag.last.map { String(format: "%.0f ms", $0) } ?? "-")
        push lag          p50 \(percentile(0.5, of: pushLag)) · p99 \(percentile(0.99, of: pushLag)) · max \(pushLag.last.map { String(format: "%.0f ms", $0) } ?? "-") (from the tick that decided it to APNs' acceptance)
        outbox backlog    \(backlog)
        on time           \(late.isEmpty ? "yes" : "no: " + late.joined(separator: ", "))
        pushes delivered  \(String(format: "%.0f", pushesPerSecond))/s
        CPU               \(String(format: "%.2f", (last.cpu - first.cpu) / wall)) cores (ticker, dispatcher\(options.databaseURL == nil ? ", SQLite" : "")\(simulator == nil ? "" : " and the simulator"))\(options.databaseURL == nil ? "" : String(format: "\nPostgreSQL CPU    %.2f cores (every postgres process)", (last.postgresCPU - first.postgresCPU) / wall))\(options.endpointPID == nil ? "" : String(format: "\nAPNs endpoint CPU %.2f cores (its own process)", (last.endpointCPU - first.endpointCPU) / wall))
        memory            \(memory("VmRSS")) resident, \(memory("VmHWM")) peak; \(String(format: "%.1f KiB", (residentBytes() - residentBeforeSetUp) / 1024 / Double(options.adventures))) per adventure (growth since before the setup)
        """)
    // Per tick stored by this process; on a shared PostgreSQL the log and
    // statement counters are every node's, so a cluster divides by all nodes' ticks.
    let ticks = max(1, Double(last.ticks - first.ticks))
    var perTick = [String(format: "%.2f ms CPU", (last.cpu - first.cpu) / ticks * 1000)]
    if options.databaseURL != nil {
        perTick.append(String(format: "%.2f ms PostgreSQL CPU", (last.postgresCPU - first.postgresCPU) / ticks * 1000))
    }
    if options.endpointPID != nil {
        perTick.append(String(format: "%.2f ms APNs endpoint CPU", (last.endpointCPU - first.endpointCPU) / ticks * 1000))
    }
    if let before = first.activity, let after = last.activity {
        perTick.append(String(format: "%.1f KB of WAL", Double(after.logBytesWritten - before.logBytesWritten) / ticks / 1000))
        if let a = before.statements, let b = after.statements {
            perTick.append(String(format: "%.1f statements", Double(b - a) / ticks))
        }
    }
    print("per adventure-tick \(perTick.joined(separator: " · "))")
    if options.databaseURL == nil {
        print(String(format: "WAL file          %.0f MiB at most, %.0f MiB at the end", Double(largestWAL) / 1_048_576,
                     Double(walFileBytes() ?? 0) / 1_048_576))
    }
    if options.followers > 0 {
        let asked = try askedPerAdventureTick()
        let pushes = Double(last.pushes - first.pushes), broadcasts = Double(last.broadcasts - first.broadcasts)
        let listeners = Double(options.followers) / Double(min(options.followers, followerLanguages.count))
        print("""
            followers         \(options.followers) per adventure, \(options.channels
                ? "on \(min(options.followers, 4)) channels (iOS 18, \(String(format: "%.0f", listeners)) listening on each)"
                : "each with their own activity (iOS 17)")
            APNs requests     \(String(format: "%.0f", (pushes + broadcasts) / wall))/s: \(String(format: "%.0f", pushes / wall)) device pushes, \(String(format: "%.0f", broadcasts / wall)) broadcasts
            per adventure-tick \(String(format: "%.2f", (pushes + broadcasts) / ticks)) requests sent (\(String(format: "%.2f", broadcasts / ticks)) broadcasts); the policy asks \(String(format: "%.2f", asked.members)) for the members and \(String(format: "%.2f", asked.followers)) for the followers
            """)
        if options.channels {
            print(String(format: "follower devices  %.0f updates/s (each broadcast reaches the %.0f followers listening)",
                         broadcasts / wall * listeners, listeners))
        }
    }
    if let before = first.leasesTaken, let after = last.leasesTaken {
        print(String(format: "leases            %.1f taken/min", (after - before) / wall * 60))
    }
}
await apns.shutdown()
try await simulator?.shutdown()
await resources.close()

/// Keeps every tick's lag (`rangers_tick_lag_seconds`) and counts pushes APNs
/// accepted (`apns_pushes_total` with status 200); other metrics are dropped.
final class LagRecorder: MetricsFactory, @unchecked Sendable {
    private let lock = NSLock()
    private var nanoseconds: [Int64] = []
    private var pushNanoseconds: [Int64] = []
    private var deliveredCount = 0
    private var broadcastCount = 0

    var delivered: Int { lock.withLock { deliveredCount } }
    var broadcasts: Int { lock.withLock { broadcastCount } }
    fileprivate func countDelivered(_ count: Int64) { lock.withLock { deliveredCount += Int(count) } }
    fileprivate func countBroadcasts(_ count: Int64) { lock.withLock { broadcastCount += Int(count) } }

    var count: Int { lock.withLock { nanoseconds.count } }
    func reset() { lock.withLock { nanoseconds.removeAll(); pushNanoseconds.removeAll() } }
    func sortedMilliseconds() -> [Double] { lock.withLock { nanoseconds.sorted().map { Double($0) / 1e6 } } }
    func sortedPushMilliseconds() -> [Double] { lock.withLock { pushNanoseconds.sorted().map { Double($0) / 1e6 } } }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        switch label {
        case "rangers_tick_lag_seconds": RecordingTimer { self.record($0) }
        case "rangers_push_lag_seconds": RecordingTimer { self.recordPush($0) }
        default: NOOPMetricsHandler.instance
        }
    }
    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        guard dimensions.contains(where: { $0 == ("status", "200") }) else { return NOOPMetricsHandler.instance }
        switch label {
        case "apns_pushes_total": return DeliveredCounter(recorder: self)
        case "apns_broadcasts_total": return BroadcastCounter(recorder: self)
        default: return NOOPMetricsHandler.instance
        }
    }
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
    fileprivate func recordPush(_ value: Int64) { lock.withLock { pushNanoseconds.append(value) } }
}

private final class DeliveredCounter: CounterHandler, @unchecked Sendable {
    init(recorder: LagRecorder) { self.recorder = recorder }
    let recorder: LagRecorder
    func increment(by amount: Int64) { recorder.countDelivered(amount) }
    func reset() {}
}

private final class BroadcastCounter: CounterHandler, @unchecked Sendable {
    init(recorder: LagRecorder) { self.recorder = recorder }
    let recorder: LagRecorder
    func increment(by amount: Int64) { recorder.countBroadcasts(amount) }
    func reset() {}
}

/// Hands each duration to the recorder's list for its metric.
private final class RecordingTimer: TimerHandler, @unchecked Sendable {
    init(_ record: @escaping (Int64) -> Void) { self.record = record }
    let record: (Int64) -> Void
    func recordNanoseconds(_ duration: Int64) { record(duration) }
}
