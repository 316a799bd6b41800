// Replay benchmark: how long verifying an 8-hour adventure at a 1-second tick
// (28,800 ticks) takes, from a SQLite database and from a session file.
//
//   swift run -c release ReplayBench [--runs 5]
//
// The shipped bosses fall long before 8 hours, so the adventure is played with
// their health raised and their attack lowered until the time limit ends it; the
// work per tick (three heroes acting, events logged, pushes decided) is the same.
// Each figure covers everything `rangers replay` does: reading the adventure (or
// decoding and checking the file), playing it again and comparing every tick.
import Catalog
import Foundation
import Game
import PushPolicy
import Replay
import Store
import StoreSQLite
import Vocabulary

let arguments = CommandLine.arguments
let runs = arguments.firstIndex(of: "--runs").flatMap { Int(arguments[$0 + 1]) } ?? 5
let contentPath = ProcessInfo.processInfo.environment["RANGERS_CONTENT"] ?? "Content"

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("ReplayBench: \(message)\n".utf8))
    exit(2)
}

/// The shipped content with bosses that last: health ×400 (at most the check's 1,000,000), attack 1.
func longLastingContent() throws -> (ContentSnapshot, ReplayContent) {
    let loaded = try LoadedContent.load(from: URL(fileURLWithPath: contentPath), requiring: PushPolicy.contentRequirements)
    var snapshot = try ContentSnapshot(of: loaded)
    guard var bosses = try JSONSerialization.jsonObject(with: Data(snapshot.bosses.utf8)) as? [String: Any],
          let list = bosses["bosses"] as? [[String: Any]] else { fail("bosses.json has no bosses list") }
    bosses["bosses"] = list.map { boss -> [String: Any] in
        var boss = boss
        boss["maxHealth"] = min((boss["maxHealth"] as? Int ?? 1000) * 400, 1_000_000)
        boss["attack"] = 1
        return boss
    }
    snapshot.bosses = String(decoding: try JSONSerialization.data(withJSONObject: bosses, options: [.sortedKeys]), as: UTF8.self)
    let (game, strings) = try snapshot.load(requiring: PushPolicy.contentRequirements)
    return (snapshot, ReplayContent(game: game, strings: strings, version: snapshot.version))
}

func seconds(_ work: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await work()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

func summary(_ times: [Double]) -> String {
    let sorted = times.sorted()
    return String(format: "%.3f s best, %.3f s median", sorted[0], sorted[sorted.count / 2])
}

do {
    let (snapshot, content) = try longLastingContent()
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("replay-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try SQLiteStore(path: directory.appendingPathComponent("rangers.sqlite").path)

    let heroes: [HeroID] = ["power-panda", "egghead", "spouty"]
    let setup = AdventureSetup(route: content.game.routes[0].id,
                               party: heroes.map { PartyMember(player: "player", hero: $0) },
                               tickInterval: 1, timeLimit: AdventureSetup.longestTimeLimit, seed: 42)
    var id = AdventureID("")
    let recording = try await seconds {
        id = try await AdventureRecorder(store: store, content: content)
            .record(setup, commands: [(tick: 3600, potionFor: "egghead"), (tick: 20000, potionFor: "spouty")])
    }
    let sessionFile = directory.appendingPathComponent("session.json")
    let session = try SavedSession(try await store.record(of: id), content: snapshot)
    try SessionFile.encode(session).write(to: sessionFile)
    guard session.lastTick == setup.lastTick else {
        fail("the adventure ended at tick \(session.lastTick) (\(session.status)), not at the time limit")
    }
    let fileSize = (try FileManager.default.attributesOfItem(atPath: sessionFile.path)[.size] as? Int) ?? 0
    print("8-hour adventure, 1-second ticks: \(session.lastTick) ticks, \(session.events.count) events, "
          + "\(session.pushes.count) pushes; session file \(fileSize / 1024) KiB; recorded into SQLite in "
          + String(format: "%.1f s", recording))

    var fromDatabase: [Double] = []
    var fromFile: [Double] = []
    var playOnly: [Double] = []
    for _ in 0..<runs {
        fromDatabase.append(try await seconds {
            // As `rangers replay <id>` reads it: the pushes counted, not read.
            let record = try await store.record(of: id, includingOutbox: false)
            let read = try SavedSession(record, content: snapshot)
            guard try Verifier.verify(read, with: content).isIdentical else { fail("the database replay differs") }
        })
        fromFile.append(try await seconds {
            let read = try SessionFile.decode(try Data(contentsOf: sessionFile))
            guard try Verifier.verify(read, with: try ReplayContent(snapshotOf: read)).isIdentical else {
                fail("the file replay differs")
            }
        })
        playOnly.append(try await seconds {
            guard try Verifier.verify(session, with: content).isIdentical else { fail("the replay differs") }
        })
    }
    print("| verify from | time (\(runs) runs) |")
    print("|---|---:|")
    print("| SQLite database | \(summary(fromDatabase)) |")
    print("| session file | \(summary(fromFile)) |")
    print("| (in memory: play and compare only) | \(summary(playOnly)) |")
} catch {
    fail("\(error)")
}
