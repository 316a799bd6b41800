// Simulation benchmark: how fast the pure game core ticks adventures on one core,
// and how much memory a running adventure takes.
//
//   swift run -c release SimulationBench [--seconds 2]
//
// Each scenario keeps N adventures (3 heroes, 1-second ticks) running: every round
// ticks each of them once, and one that ends is replaced by a fresh one, so N stay
// in flight. Figures are per adventure-tick and per hero action (a hero's attack
// or heal), so the rows compare as ratios within one run.
import Catalog
import Foundation
import Game

#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments
let secondsPerScenario = arguments.firstIndex(of: "--seconds").flatMap { Double(arguments[$0 + 1]) } ?? 2.0
let contentPath = ProcessInfo.processInfo.environment["RANGERS_CONTENT"] ?? "Content"
let content: GameContent
do {
    content = try LoadedContent.load(from: URL(fileURLWithPath: contentPath)).game
} catch {
    FileHandle.standardError.write(Data("SimulationBench: \(error)\n".utf8))
    exit(2)
}

let party = [
    PartyMember(player: "player-1", hero: "power-panda"),
    PartyMember(player: "player-2", hero: "egghead"),
    PartyMember(player: "player-3", hero: "spouty"),
]
let routes = content.routes.map(\.id)

func makeAdventure(_ seed: UInt64) -> Adventure {
    let setup = AdventureSetup(route: routes[Int(seed % UInt64(routes.count))], party: party,
                               tickInterval: 1, timeLimit: AdventureSetup.longestTimeLimit, seed: seed)
    return try! Adventure(setup: setup, content: content)
}

func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

struct Figures {
    var adventures: Int
    var ticks: Int
    var heroActions: Int
    var seconds: Double
    var ticksPerSecond: Double { Double(ticks) / seconds }
    var actionsPerSecond: Double { Double(heroActions) / seconds }
    var nanosecondsPerTick: Double { seconds * 1e9 / Double(ticks) }
}

func run(adventures count: Int) -> Figures {
    var nextSeed: UInt64 = 1
    var adventures: [Adventure] = []
    var states: [AdventureState] = []
    adventures.reserveCapacity(count)
    states.reserveCapacity(count)
    for _ in 0..<count {
        let adventure = makeAdventure(nextSeed)
        nextSeed += 1
        adventures.append(adventure)
        states.append(adventure.start())
    }
    var events: [GameEvent] = []
    events.reserveCapacity(64)
    var ticks = 0
    var heroActions = 0
    let start = now()
    var elapsed = 0.0
    repeat {
        for index in 0..<count {
            events.removeAll(keepingCapacity: true)
            adventures[index].tick(&states[index], events: &events)
            ticks += 1
            for event in events {
                switch event {
                case .damageDealt, .criticalHit, .smallHeal: heroActions += 1
                default: break
                }
            }
            if !states[index].isRunning {
                adventures[index] = makeAdventure(nextSeed)
                states[index] = adventures[index].start()
                nextSeed += 1
            }
        }
        elapsed = now() - start
    } while elapsed < secondsPerScenario
    return Figures(adventures: count, ticks: ticks, heroActions: heroActions, seconds: elapsed)
}

/// Resident memory added by `count` running adventures, per adventure: the
/// resolved adventure (its rules of play) and its state, measured apart.
/// Read from /proc/self/statm, so allocator overhead is included.
func memoryPerAdventure(count: Int) -> (adventure: Double, state: Double) {
    func residentBytes() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let pages = statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
    var adventures: [Adventure] = []
    var states: [AdventureState] = []
    adventures.reserveCapacity(count)
    states.reserveCapacity(count)
    let before = residentBytes()
    for seed in 0..<count { adventures.append(makeAdventure(UInt64(seed))) }
    let afterAdventures = residentBytes()
    for adventure in adventures { states.append(adventure.start()) }
    let afterStates = residentBytes()
    // The reserved arrays' inline parts are touched only as they fill, so they count here.
    let result = (Double(afterAdventures - before) / Double(count), Double(afterStates - afterAdventures) / Double(count))
    withExtendedLifetime((adventures, states)) {}
    return result
}

// Measured first, while the heap is fresh: memory freed by a scenario stays in the
// process and would hide what new adventures take.
let memory = memoryPerAdventure(count: 100_000)

print("Simulation benchmark — one core, \(secondsPerScenario) s per scenario, 3 heroes, 1-second ticks")
print("")
print("| running adventures | adventure-ticks/s | hero actions/s | ns per adventure-tick | vs 1 adventure |")
print("|---:|---:|---:|---:|---:|")
var baseline: Double?
for count in [1, 1_000, 100_000] {
    let figures = run(adventures: count)
    let ratio = figures.nanosecondsPerTick / (baseline ?? figures.nanosecondsPerTick)
    if baseline == nil { baseline = figures.nanosecondsPerTick }
    print(String(format: "| %@ | %@ | %@ | %.0f | %.2f× |",
                 count.formatted(), Int(figures.ticksPerSecond).formatted(), Int(figures.actionsPerSecond).formatted(),
                 figures.nanosecondsPerTick, ratio))
}
print("")
print(String(format: "Memory per running adventure (100,000 in memory): %.0f bytes of state + %.0f bytes of resolved rules of play",
             memory.state, memory.adventure))
