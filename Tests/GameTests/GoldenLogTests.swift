import Foundation
import Game
import Testing

/// Whole event logs for a few seeds, kept in Tests/GameTests/Golden. A change to
/// the rules or the content shows up as a diff of these files in review.
/// Regenerate with `RANGERS_UPDATE_GOLDEN=1 swift test --filter GoldenLogTests`.
@Suite struct GoldenLogTests {
    static let golden = Fixtures.repositoryRoot.appendingPathComponent("Tests/GameTests/Golden")

    @Test(arguments: [
        ("seed-42-whispering-woods", UInt64(42), RouteID("whispering-woods"), Fixtures.trio, [ScheduledCommand]()),
        ("seed-7-dragon-peak-potions", 7, "dragon-peak", Fixtures.trio, [
            ScheduledCommand(tick: 40, command: .usePotion(player: "player-1", hero: "spouty")),
            ScheduledCommand(tick: 60, command: .usePotion(player: "player-3", hero: "egghead")),
        ]),
        ("seed-2026-haunted-keep-solo", 2026, "haunted-keep", [PartyMember(player: "player-1", hero: "octo")], []),
    ])
    func eventLogMatchesGolden(name: String, seed: UInt64, route: RouteID, party: [PartyMember], commands: [ScheduledCommand]) throws {
        let log = Fixtures.log(Fixtures.play(try Fixtures.adventure(seed: seed, party: party, route: route), commands: commands))
        let file = Self.golden.appendingPathComponent("\(name).log")
        if ProcessInfo.processInfo.environment["RANGERS_UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(at: Self.golden, withIntermediateDirectories: true)
            try log.write(to: file, atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOf: file, encoding: .utf8)
        let mismatch = zip(log.split(separator: "\n"), expected.split(separator: "\n")).enumerated().first { $0.element.0 != $0.element.1 }
        #expect(log == expected, "first difference at line \(mismatch.map { "\($0.offset + 1): \($0.element.0) ≠ \($0.element.1)" } ?? "end")")
    }
}
