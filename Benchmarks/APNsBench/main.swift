// APNs sender benchmark: sends N Live Activity pushes through `APNsClient` and
// `CurlHTTP2Transport` to a local HTTP/2 + TLS endpoint and prints, per number
// of connections, pushes per second, p50/p99 latency and the CPU time this
// process spent per 10,000 pushes (the endpoint's CPU is not counted when it
// runs in its own process).
//
//   bash Benchmarks/apns-bench.sh                      # against a local nginx sink
//   swift run -c release APNsBench --url https://127.0.0.1:2197 --ca-file sim-cert.pem \
//       [--pushes 50000] [--connections 1,4] [--streams 100] [--in-flight N]
//       [--key-file key.p8 --key-id ID --team-id ID]   # a key the endpoint trusts
//       [--on-swift-pool]   # send from Swift's worker threads, not the transport's own
//       [--rate N [--burst-ms MS]]   # N pushes a second, those due every MS (default 100)
//
// With --rate the pushes go out at that pace, not as fast as they can: every
// --burst-ms the ones due since the last burst, each in a task of its own on the
// transport's thread, as a server's dispatcher sends what it claimed. The CPU per
// push then compares with a server's at the same rate, where libcurl is not kept
// full and each push carries more of the waking and polling.
//
// Without --key-file a fresh key signs the provider tokens (fine for a sink that
// does not check them).
import APNs
import APNsCurl
import Foundation

#if canImport(Glibc)
import Glibc
import Vocabulary
#endif

struct Options {
    var url = ""
    var caFile: URL?
    var pushes = 50_000
    var connections = [1, 4]
    var streams = 100
    var inFlight: Int?
    var keyFile: String?
    var keyID = "BENCHKEY01"
    var teamID = "BENCHTEAM1"
    /// Run the sending tasks on the transport's thread (`--on-swift-pool` to not).
    var onTransportThread = true
    /// Pushes a second, sent in bursts every `burstMilliseconds`; nil for as fast as it can.
    var rate: Int?
    var burstMilliseconds = 100

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var index = 1
        func value() throws -> String {
            index += 1
            guard index < arguments.count else { throw UsageError("\(arguments[index - 1]) needs a value") }
            return arguments[index]
        }
        func number(_ text: String) throws -> Int {
            guard let value = Int(text), value > 0 else { throw UsageError("'\(text)' is not a positive number") }
            return value
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--url": options.url = try value()
            case "--ca-file": options.caFile = URL(fileURLWithPath: try value())
            case "--pushes": options.pushes = try number(value())
            case "--connections": options.connections = try value().split(separator: ",").map { try number(String($0)) }
            case "--streams": options.streams = try number(value())
            case "--in-flight": options.inFlight = try number(value())
            case "--key-file": options.keyFile = try value()
            case "--key-id": options.keyID = try value()
            case "--team-id": options.teamID = try value()
            case "--on-swift-pool": options.onTransportThread = false
            case "--rate": options.rate = try number(value())
            case "--burst-ms": options.burstMilliseconds = try number(value())
            default: throw UsageError("unknown argument \(arguments[index])")
            }
            index += 1
        }
        guard options.url.hasPrefix("https://") else { throw UsageError("--url https://host:port is required") }
        guard !options.connections.isEmpty else { throw UsageError("--connections needs at least one number") }
        return options
    }
}

struct UsageError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

struct WorkerResult: Sendable {
    var latencies = LatencyHistogram()
    var failures = 0
    var firstFailure: String?
}

/// Latencies counted in buckets a sixteenth of a power of two wide (within 6 %):
/// a few instructions per push and no sort at the end, so the benchmark's own
/// bookkeeping stays out of the sender's instructions per push (the C baseline
/// keeps none).
struct LatencyHistogram: Sendable {
    private var counts = [UInt32](repeating: 0, count: 64 * 16)
    private(set) var total = 0

    mutating func record(nanoseconds: UInt64) {
        let value = max(nanoseconds, 16)
        let exponent = 63 - value.leadingZeroBitCount
        counts[exponent * 16 + Int((value >> (exponent - 4)) & 15)] += 1
        total += 1
    }

    mutating func add(_ other: LatencyHistogram) {
        for index in counts.indices { counts[index] += other.counts[index] }
        total += other.total
    }

    /// The bucket's lower bound where `fraction` of the latencies are reached, in ms.
    func percentile(_ fraction: Double) -> Double {
        guard total > 0 else { return .nan }
        let wanted = min(total, Int(Double(total) * fraction) + 1)
        var seen = 0
        for (index, count) in counts.enumerated() {
            seen += Int(count)
            if seen >= wanted {
                let exponent = index / 16, step = UInt64(index % 16)
                return Double((16 + step) << UInt64(exponent - 4)) / 1e6
            }
        }
        return .nan
    }
}

/// A monotonic clock read without `Duration` arithmetic.
func nanosecondsNow() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

let bundleID = SampleApp.bundleID
let payload = Data(#"""
{"aps":{"timestamp":1700000000,"event":"update","content-state":{"currentHealthLevel":0.42,"eventDescription":"Power Panda used a potion!"},"stale-date":1700000060,"relevance-score":50}}
"""#.utf8)

/// Made once: formatting a token per push would be the benchmark measuring itself.
let deviceTokens = (0..<1024).map { String(format: "%064x", $0 * 7919) }

struct SendFailure: Error {
    var description: String
}

extension WorkerResult {
    mutating func record(_ sent: Result<UInt64, SendFailure>) {
        switch sent {
        case .success(let nanoseconds): latencies.record(nanoseconds: nanoseconds)
        case .failure(let failure):
            failures += 1
            if firstFailure == nil { firstFailure = failure.description }
        }
    }
}

/// One push: how long it took to be delivered, or why it was not.
func sendOne(_ index: Int, client: APNsClient) async -> Result<UInt64, SendFailure> {
    let token = deviceTokens[index % deviceTokens.count]
    let request = APNsRequest.liveActivity(deviceToken: token, bundleID: bundleID, priority: 5, payload: payload)
    let started = nanosecondsNow()
    let outcome = try? await client.send(request).outcome
    guard case .delivered = outcome else { return .failure(SendFailure(description: outcome.map { "\($0)" } ?? "cancelled")) }
    return .success(nanosecondsNow() - started)
}

/// The paced run's results, taken in as each push ends: a task that ended is
/// gone at once, as in a dispatcher that takes its answers as they come, rather
/// than kept (with its memory) until the last push.
final class PacedTally: @unchecked Sendable {
    private let lock = NSLock()
    private var result = WorkerResult()

    func record(_ sent: Result<UInt64, SendFailure>) {
        lock.lock()
        result.record(sent)
        lock.unlock()
    }

    var total: WorkerResult {
        lock.lock()
        defer { lock.unlock() }
        return result
    }
}

/// Sends `count` pushes at `rate` a second: every `burstMilliseconds` the ones
/// due, each in a task of its own (on `executor` when given), as a dispatcher
/// sends its claims.
func sendPaced(_ count: Int, rate: Int, burstMilliseconds: Int, client: APNsClient, executor: (any TaskExecutor)?) async -> WorkerResult {
    let tally = PacedTally()
    await withDiscardingTaskGroup { group in
        let clock = ContinuousClock()
        let start = clock.now
        var started = 0
        var bursts = 0
        while started < count {
            bursts += 1
            try? await clock.sleep(until: start + .milliseconds(burstMilliseconds * bursts))
            let due = min(count, bursts * burstMilliseconds * rate / 1000)
            while started < due {
                let index = started
                group.addTask(executorPreference: executor) { tally.record(await sendOne(index, client: client)) }
                started += 1
            }
        }
    }
    return tally.total
}

/// Sends `count` pushes from `workers` tasks at once, each timing its own pushes.
/// With `executor`, the workers run on the transport's own thread.
func sendPushes(_ count: Int, workers: Int, client: APNsClient, executor: (any TaskExecutor)?) async -> WorkerResult {
    await withTaskGroup(of: WorkerResult.self) { group in
        for worker in 0..<min(workers, count) {
            group.addTask(executorPreference: executor) {
                var result = WorkerResult()
                for index in stride(from: worker, to: count, by: workers) {
                    result.record(await sendOne(index, client: client))
                }
                return result
            }
        }
        var total = WorkerResult()
        for await result in group {
            total.latencies.add(result.latencies)
            total.failures += result.failures
            total.firstFailure = total.firstFailure ?? result.firstFailure
        }
        return total
    }
}

let options: Options
let key: APNsSigningKey
do {
    options = try Options.parse(CommandLine.arguments)
    if let keyFile = options.keyFile {
        key = try APNsSigningKey(contentsOf: URL(fileURLWithPath: keyFile), keyID: options.keyID, teamID: options.teamID)
    } else {
        key = APNsSigningKey.generate(keyID: options.keyID, teamID: options.teamID).key
    }
} catch {
    FileHandle.standardError.write(Data("APNsBench: \(error)\n".utf8))
    exit(2)
}

/// Sends the rows; returns how many had failures.
func run() async -> Int {
    let pace = options.rate.map { "paced at \($0)/s in bursts every \(options.burstMilliseconds) ms" } ?? "as fast as it can"
    print("libcurl \(CurlLibrary.version), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(options.pushes) pushes per row, \(pace), endpoint \(options.url)")
    print("connections  streams  in-flight   pushes/s   p50 ms   p99 ms   CPU s/10k  opened  failed")
    var failedRows = 0
    for connections in options.connections {
        let inFlight = options.inFlight ?? connections * options.streams
        let configuration = CurlTransportConfiguration(
            maximumConnectionsPerHost: connections, maximumConcurrentStreamsPerConnection: options.streams,
            maximumRequestsInFlight: inFlight, caFile: options.caFile)
        let transport: CurlHTTP2Transport
        do {
            transport = try CurlHTTP2Transport(configuration: configuration)
        } catch {
            FileHandle.standardError.write(Data("APNsBench: \(error)\n".utf8))
            exit(2)
        }
        // No retries: a failure should show as one, not as latency.
        let executor: (any TaskExecutor)? = options.onTransportThread ? transport.executor : nil
        let client = APNsClient(environment: .custom(options.url), key: key, transport: transport,
                                retry: APNsRetryPolicy(maximumAttempts: 1))
        // Warm-up opens the connections and fills libcurl's caches outside the measurement.
        let warmup = await sendPushes(min(options.pushes, 2_000), workers: inFlight, client: client, executor: executor)
        if warmup.failures > 0 {
            FileHandle.standardError.write(Data("APNsBench: warm-up failed: \(warmup.firstFailure ?? "?")\n".utf8))
            exit(1)
        }
        let cpuBefore = cpuSeconds()
        let started = ContinuousClock.now
        let result = if let rate = options.rate {
            await sendPaced(options.pushes, rate: rate, burstMilliseconds: options.burstMilliseconds, client: client,
                            executor: executor)
        } else {
            await sendPushes(options.pushes, workers: inFlight, client: client, executor: executor)
        }
        let elapsed = ContinuousClock.now - started
        let cpu = cpuSeconds() - cpuBefore
        await client.shutdown()

        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(String(format: "%11d  %7d  %9d  %9.0f  %7.2f  %7.2f  %10.3f  %6d  %6d", connections, options.streams, inFlight,
                     Double(options.pushes) / seconds, result.latencies.percentile(0.5), result.latencies.percentile(0.99),
                     cpu / Double(options.pushes) * 10_000, transport.connectionsOpened, result.failures))
        if let failure = result.firstFailure {
            print("  first failure: \(failure)")
            failedRows += 1
        }
    }
    return failedRows
}

// Not top-level `await`: that makes the main thread wait in `dispatch_main`,
// where valgrind (Benchmarks/callgrind.sh) crashes; a detached task and a
// semaphore do the same work.
let finished = DispatchSemaphore(value: 0)
nonisolated(unsafe) var failedRows = 0
Task.detached {
    failedRows = await run()
    finished.signal()
}
finished.wait()
exit(failedRows == 0 ? 0 : 1)
