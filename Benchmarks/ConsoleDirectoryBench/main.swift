// The console's party directory with many parties: how long one page takes at
// the start, in the middle and at the end of the directory, a search by invite
// code, and a search by a name only one party has (which walks the name index).
// The parties are made through the store as the API makes them (a player, then
// their party), eight at a time.
//
//   swift run -c release ConsoleDirectoryBench [--parties 100000] [--database postgres://…]
import Foundation
import Game
import Server
import Store
import Vocabulary

let arguments = CommandLine.arguments
func option(_ name: String) -> String? { arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil } }
let count = option("--parties").flatMap(Int.init) ?? 100_000
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("console-directory-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let configuration = ServerConfiguration(
    gameMasterKey: String(repeating: "k", count: 32), apns: .simulator, databasePath: directory.appendingPathComponent("directory.sqlite").path,
    databaseURL: option("--database"), port: 0, contentDirectory: URL(fileURLWithPath: "Content", isDirectory: true))
let store: any RangersStore
do {
    store = try await configuration.store.open()
} catch {
    FileHandle.standardError.write(Data("ConsoleDirectoryBench: \(error)\n".utf8))
    exit(2)
}

/// Words a party's name is made of; "Zephyr" is kept for the one party a rare search finds.
let words = ["Brave", "Golden", "Silent", "Lucky", "Crimson", "Swift", "Clever", "Mighty", "Hidden", "Frosty"]
func name(_ index: Int) -> String {
    index == count / 2 ? "Zephyr Riders" : "\(words[index % words.count]) \(words[(index / words.count) % words.count]) \(index)"
}

let started = ContinuousClock.now
let made: [Party] = try await withThrowingTaskGroup(of: [Party].self) { group in
    let lanes = 8
    for lane in 0..<lanes {
        group.addTask {
            var parties: [Party] = []
            for index in stride(from: lane, to: count, by: lanes) {
                let player = try await store.createPlayer(name: "gm-bench \(index)", at: Date()).player.id
                _ = try await store.pickHeroes([HeroID("power-panda")], for: player)
                parties.append(try await store.createParty(name: name(index), by: player, hero: HeroID("power-panda"), at: Date()))
            }
            return parties
        }
    }
    var all: [Party] = []
    for try await parties in group { all += parties }
    return all
}
print("\(made.count) parties made in \(started.duration(to: .now)) on \(configuration.store)")

/// The median of `runs` timings of `body`, in milliseconds.
func median(_ runs: Int = 21, _ body: () async throws -> Void) async rethrows -> Double {
    var times: [Double] = []
    for _ in 0..<runs {
        let start = ContinuousClock.now
        try await body()
        let elapsed = start.duration(to: .now).components
        times.append(Double(elapsed.seconds) * 1e3 + Double(elapsed.attoseconds) / 1e15)
    }
    return times.sorted()[runs / 2]
}

let pageSize = 25  // as the console pages it
let ordered = made.sorted { ($0.name.utf8.lexicographicallyPrecedes($1.name.utf8)) || ($0.name == $1.name && $0.id.rawValue < $1.id.rawValue) }
func cursor(at index: Int) -> PartyDirectoryCursor { PartyDirectoryCursor(name: ordered[index].name, id: ordered[index].id) }
let rare = made.first { $0.name == "Zephyr Riders" }!
var found = 0
let first = try await median { found = try await store.partyDirectory(search: nil, after: nil, limit: pageSize).count }
precondition(found == pageSize)
let middle = try await median { found = try await store.partyDirectory(search: nil, after: cursor(at: count / 2), limit: pageSize).count }
precondition(found == pageSize)
let last = try await median { found = try await store.partyDirectory(search: nil, after: cursor(at: count - pageSize - 1), limit: pageSize).count }
precondition(found == pageSize)
let byCode = try await median { found = try await store.partyDirectory(search: PartySearch(rare.inviteCode.rawValue), after: nil, limit: pageSize).count }
precondition(found == 1)
let byRareName = try await median(5) { found = try await store.partyDirectory(search: PartySearch("zephyr"), after: nil, limit: pageSize).count }
precondition(found == 1)
let byCommonName = try await median { found = try await store.partyDirectory(search: PartySearch("golden"), after: nil, limit: pageSize).count }
precondition(found == pageSize)

print("a page of \(pageSize), median ms: first \(String(format: "%.2f", first)) · middle \(String(format: "%.2f", middle)) · last \(String(format: "%.2f", last))")
print("search, median ms: by invite code \(String(format: "%.2f", byCode)) · a name one party has \(String(format: "%.1f", byRareName)) · a name about one party in five has \(String(format: "%.2f", byCommonName))")
await StoreChoice.close(store)
