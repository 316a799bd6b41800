import Catalog
import Foundation
import Game
import GRDB
import PushPolicy
import Replay
import Store
import StoreSQLite
import Testing

/// `rangers replay` as a user runs it, against a database the server's way of
/// storing adventures filled.
@Suite struct ReplayCommandTests {
    let scratch: URL

    init() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("replay-command-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    static let content = RangersProcess.repositoryRoot.appendingPathComponent("Content")

    func recorded() async throws -> (db: String, id: String) {
        let loaded = try LoadedContent.load(from: Self.content, requiring: PushPolicy.contentRequirements)
        let db = scratch.appendingPathComponent("rangers.sqlite").path
        let setup = AdventureSetup(route: loaded.game.routes[0].id,
                                   party: ["power-panda", "egghead", "spouty"].map { PartyMember(player: "p", hero: HeroID($0)) },
                                   tickInterval: 10, timeLimit: AdventureSetup.longestTimeLimit, seed: 11)
        let id = try await AdventureRecorder(store: try SQLiteStore(path: db), content: ReplayContent(loaded))
            .record(setup, commands: [(tick: 4, potionFor: "spouty")])
        return (db, id.rawValue)
    }

    @Test func verifiesExportsAndReportsDifferences() async throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (db, id) = try await recorded()

        let identical = try await RangersProcess.run(["replay", id, "--db", db])
        #expect(identical.status == 0, "\(identical.stderr)")
        #expect(identical.stdout.hasPrefix("identical: "), "\(identical.stdout)")

        let json = try await RangersProcess.run(["replay", id, "--db", db, "--format", "json", "--timeline"])
        let lines = json.stdout.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.allSatisfy { $0 != nil }, "\(json.stdout.prefix(500))")
        #expect(lines.first??["kind"] as? String == "adventure")
        #expect(lines.contains { $0?["kind"] as? String == "push" && $0?["state"] as? String != nil })
        #expect(lines.last??["result"] as? String == "identical")

        let text = try await RangersProcess.run(["replay", id, "--db", db, "--timeline", "--language", "vi"])
        #expect(text.stdout.contains("\ntick 1 · 0:00:10 · "))
        #expect(text.stdout.contains(" priority 10 alert "))

        let file = scratch.appendingPathComponent("session.json").path
        let exported = try await RangersProcess.run(["replay", "export", id, "--db", db, "-o", file])
        #expect(exported.status == 0, "\(exported.stderr)")
        // No database and no Content/ needed for a session file.
        let fromFile = try await RangersProcess.run(["replay", file, "--content", "/nonexistent", "--db", "/nonexistent"])
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        #expect(fromFile.stdout == identical.stdout)

        let page = scratch.appendingPathComponent("timeline.html").path
        let html = try await RangersProcess.run(["replay", file, "--html", page])
        #expect(html.status == 0)
        #expect(try String(contentsOfFile: page, encoding: .utf8).contains(#"<svg id="chart""#))

        // One event edited in the database.
        let tick = try DatabaseEditor(path: db).editFirstEvent(of: id, after: 10)
        let diverged = try await RangersProcess.run(["replay", id, "--db", db])
        #expect(diverged.status == 1)
        #expect(diverged.stdout.hasPrefix("diverged at tick \(tick) "), "\(diverged.stdout)")
        #expect(diverged.stdout.contains(#"saved:    {"boss":"thorn-wolf","type":"bossEnraged"}"#))
        #expect(diverged.stdout.contains("replayed: {"))
    }

    @Test func pushSendsOneHerosViewToTheSimulatorInOrder() async throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (db, id) = try await recorded()
        let simulator = try APNsSimProcess.start(keyDirectory: scratch.appendingPathComponent("keys"))
        defer { _ = simulator.stop() }
        let pushed = try await RangersProcess.run(
            ["replay", id, "--db", db, "--push", "--speed", "2000", "--hero", "egghead",
             "--token", String(repeating: "ab", count: 32), "--push-to-start-token", String(repeating: "cd", count: 32)]
                + simulator.connection)
        #expect(pushed.status == 0, "\(pushed.stderr)")
        // Not a terminal: one plain line per push, "[k/N] tick T event priority P timestamp S: status".
        let lines = pushed.stderr.split(separator: "\n").filter { $0.hasPrefix("[") }
        let total = try #require(lines.first.flatMap { $0.split(separator: "/").dropFirst().first }.flatMap { Int($0.prefix { $0.isNumber }) })
        #expect(total > 3)
        #expect(lines.count == total)
        #expect(lines.enumerated().allSatisfy { $0.element.hasPrefix("[\($0.offset + 1)/\(total)] ") })
        #expect(lines.allSatisfy { $0.hasSuffix(": 200") }, "\(lines)")
        #expect(lines.first?.contains(" start ") == true)
        #expect(lines.last?.contains(" end ") == true)
        let timestamps = lines.compactMap { line in
            line.components(separatedBy: " timestamp ").last.flatMap { Int($0.prefix { $0.isNumber }) }
        }
        #expect(timestamps.count == total)
        #expect(zip(timestamps, timestamps.dropFirst()).allSatisfy { $0 < $1 }, "\(timestamps)")
        #expect(pushed.stdout.contains("sent \(total) pushes of egghead's view"))
        #expect(!pushed.stderr.contains("\u{1B}"))
    }

    @Test func changedContentAndBadFilesGetTheirOwnExits() async throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (db, id) = try await recorded()
        let copy = scratch.appendingPathComponent("Content")
        try FileManager.default.copyItem(at: Self.content, to: copy)
        let rules = copy.appendingPathComponent("rules.json")
        try String(contentsOf: rules, encoding: .utf8).replacingOccurrences(of: "\"tankThreat\": 3", with: "\"tankThreat\": 4")
            .write(to: rules, atomically: true, encoding: .utf8)
        let changed = try await RangersProcess.run(["replay", id, "--db", db, "--content", copy.path])
        #expect(changed.status == 3)
        #expect(changed.stderr.contains("content changed: the adventure ran with content version"), "\(changed.stderr)")

        let truncated = scratch.appendingPathComponent("cut.json")
        let file = scratch.appendingPathComponent("session.json").path
        _ = try await RangersProcess.run(["replay", "export", id, "--db", db, "-o", file])
        let whole = try Data(contentsOf: URL(fileURLWithPath: file))
        try whole.prefix(whole.count - 100).write(to: truncated)
        let cut = try await RangersProcess.run(["replay", truncated.path])
        #expect(cut.status == 2)
        #expect(cut.stderr.contains("session file \(truncated.path): is not valid JSON"), "\(cut.stderr)")

        let foreign = try await RangersProcess.run(["replay", Self.content.appendingPathComponent("heroes.json").path])
        #expect(foreign.status == 2)
        #expect(foreign.stderr.contains("field 'format' is missing"), "\(foreign.stderr)")

        let strayToken = try await RangersProcess.run(["replay", file, "--token", String(repeating: "ab", count: 32)])
        #expect(strayToken.status == 2)
        #expect(strayToken.stderr.contains("go with --push"), "\(strayToken.stderr)")

        let unknown = try await RangersProcess.run(["replay", "no-such-adventure", "--db", db])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("no-such-adventure"))
    }
}

/// Changes a database behind the server's back, as a person with sqlite3 would.
struct DatabaseEditor {
    let queue: DatabaseQueue

    init(path: String) throws { queue = try DatabaseQueue(path: path) }

    /// Makes the first event of the first tick after `tick` a boss enraging; returns that tick.
    func editFirstEvent(of adventure: String, after tick: Int) throws -> Int {
        try queue.write { db in
            let edited = try #require(try Int.fetchOne(db, sql: "SELECT MIN(tick) FROM tickEvents WHERE adventure = ? AND tick > ?",
                                                       arguments: [adventure, tick]))
            // The tick's events are one per line: the first line replaced.
            try db.execute(sql: """
                UPDATE tickEvents SET events = '{"boss":"thorn-wolf","type":"bossEnraged"}'
                    || substr(events, instr(events || char(10), char(10)))
                WHERE adventure = ? AND tick = ?
                """, arguments: [adventure, edited])
            return edited
        }
    }
}
