// The ticker's cost per adventure-tick on a fixed workload: N adventures of 3
// heroes, each hero's player with a Live Activity, seeds 0..<N, played tick by
// tick by the real `Ticker` (game, push policy, payload encoding and the store's
// commit) on a clock that advances one tick interval per round; after each round
// every push is claimed and recorded as delivered through the store, as the
// dispatcher does (without the network). No wall-clock waits. The same options do the same work in every
// run, so `valgrind --tool=callgrind` counts the same instructions whatever else
// the machine is doing; `Benchmarks/callgrind.sh` runs it at two lengths and
// divides the difference by the extra adventure-ticks, which leaves the setup out.
//
//   swift run -c release TickerCostBench [--adventures 300] [--rounds 20] [--database postgres://…]
//
// Prints the adventure-ticks played and, for a machine not under valgrind, the
// CPU time per adventure-tick of the rounds (not of the setup).
import Catalog
import Foundation
import Game
import Logging
import PushPolicy
import Server
import Store
import Vocabulary

#if canImport(Glibc)
import Glibc
import Services
#endif

struct Options {
    var adventures = 300
    var rounds = 20
    var databaseURL: String?

    static func parse() throws -> Options {
        var options = Options()
        var arguments = CommandLine.arguments.dropFirst().makeIterator()
        while let argument = arguments.next() {
            guard let value = arguments.next() else { throw BenchError("\(argument) needs a value") }
            switch argument {
            case "--database": options.databaseURL = value
            case "--adventures", "--rounds":
                guard let number = Int(value), number > 0 else { throw BenchError("\(argument) needs a positive number") }
                if argument == "--adventures" { options.adventures = number } else { options.rounds = number }
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

/// The ticker's clock: set by the rounds, never read from the system.
final class BenchClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    init(_ start: Date) { current = start }
    var now: Date { lock.withLock { current } }
    func set(_ date: Date) { lock.withLock { current = date } }
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// What the dispatcher asks of the store, without the network: claims every due
/// push in its batches and records each as delivered with the next claim.
func deliverEverything(_ store: any RangersStore, at now: Date) async throws -> Int {
    var answered: [PushResult] = []
    var delivered = 0
    repeat {
        let claimed = try await store.recordAndClaim(answered, limit: 512, now: now).claimed
        delivered += answered.count
        answered = claimed.map { PushResult($0, .delivered(apnsID: "00000000-0000-4000-8000-000000000000")) }
    } while !answered.isEmpty
    return delivered
}

/// Sets up the adventures, then plays the rounds.
func run() async throws {
    LoggingSystem.bootstrap { label in
        var handler = StreamLogHandler.standardError(label: label)
        handler.logLevel = .error
        return handler
    }
    let options: Options
    do { options = try Options.parse() } catch {
        FileHandle.standardError.write(Data("TickerCostBench: \(error)\n".utf8))
        exit(2)
    }

    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ticker-cost-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let configuration = ServerConfiguration(
        gameMasterKey: String(repeating: "k", count: 32), apns: .simulator, databasePath: directory.appendingPathComponent("cost.sqlite").path,
        databaseURL: options.databaseURL, port: 0, contentDirectory: URL(fileURLWithPath: "Content", isDirectory: true))
    let resources = try await ServerResources.open(configuration)
    let store = resources.store
    let content = resources.content
    let heroes = [HeroID("power-panda"), HeroID("egghead"), HeroID("spouty")]
    // A fixed instant, so that every run plays the same game times.
    let startedAt = 1_800_000_000
    let clock = BenchClock(Date(timeIntervalSince1970: TimeInterval(startedAt)))

    for index in 0..<options.adventures {
        var players: [PlayerID] = []
        for hero in heroes {
            let player = try await store.createPlayer(name: "p\(index)-\(hero.rawValue)", at: clock.now).player.id
            _ = try await store.pickHeroes([hero], for: player)
            players.append(player)
        }
        let party = try await store.createParty(name: "party \(index)", by: players[0], hero: heroes[0], at: clock.now)
        for (player, hero) in zip(players.dropFirst(), heroes.dropFirst()) {
            _ = try await store.joinParty(inviteCode: party.inviteCode.rawValue, player: player, hero: hero, at: clock.now)
        }
        let roster = zip(players, heroes).map { PartyMember(player: $0, hero: $1) }
        let setup = AdventureSetup(route: content.game.routes[0].id, party: roster, tickInterval: 1,
                                   timeLimit: AdventureSetup.longestTimeLimit, seed: UInt64(index))
        let adventure = try await store.startAdventure(
            id: .random(), party: party.id, setup: setup, state: try Adventure(setup: setup, content: content.game).start(),
            startedAt: startedAt, contentVersion: content.version, outbox: [], at: clock.now)
        for (slot, member) in roster.enumerated() {
            let token = try PushToken(hex: String(format: "%08x%02x", index, slot) + String(repeating: "ab", count: 27))
            _ = try await store.registerLiveActivity(activityID: ActivityID("a\(index)-\(slot)"), player: member.player,
                                                     adventure: adventure.id, hero: member.hero, token: token,
                                                     frequentUpdates: slot == 0, locale: "en-US", at: clock.now)
        }
    }

    let ticker = Ticker(store: store, content: content, policy: configuration.pushPolicy, bundleID: configuration.bundleID,
                        now: { clock.now })
    let cpuBefore = cpuSeconds()
    var played = 0
    var delivered = 0
    for round in 1...options.rounds {
        // The end of the round's second: every adventure's tick has fallen due, whatever its phase.
        let now = Date(timeIntervalSince1970: TimeInterval(startedAt + round) + 0.999)
        clock.set(now)
        while true {
            let stored = try await ticker.playDueTicks()
            if stored == 0 { break }
            played += stored
        }
        delivered += try await deliverEverything(store, at: now)
    }
    let cpu = cpuSeconds() - cpuBefore
    print("\(played) adventure-ticks (\(options.adventures) adventures × \(options.rounds) rounds), \(delivered) pushes delivered, on \(configuration.store)")
    print(String(format: "CPU per adventure-tick: %.1f µs (rounds only)", cpu / Double(max(1, played)) * 1e6))
    await resources.close()
}

// Not top-level `await`: that makes the main thread wait in `dispatch_main`,
// where valgrind crashes; a detached task and a semaphore do the same work.
let finished = DispatchSemaphore(value: 0)
Task.detached {
    do { try await run() } catch {
        FileHandle.standardError.write(Data("TickerCostBench: \(error)\n".utf8))
        exit(1)
    }
    finished.signal()
}
finished.wait()
