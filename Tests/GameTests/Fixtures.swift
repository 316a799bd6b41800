import Catalog
import Foundation
import Game

enum Fixtures {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The shipped Content/, loaded and checked once.
    static let content: GameContent = {
        do {
            return try LoadedContent.load(from: repositoryRoot.appendingPathComponent("Content")).game
        } catch {
            fatalError("shipped content must load: \(error)")
        }
    }()

    static let trio: [PartyMember] = [
        PartyMember(player: "player-1", hero: "power-panda"),
        PartyMember(player: "player-2", hero: "egghead"),
        PartyMember(player: "player-3", hero: "spouty"),
    ]

    static func adventure(
        seed: UInt64 = 42, party: [PartyMember] = trio, route: RouteID = "whispering-woods",
        tickInterval: Int = 10, timeLimit: Int = AdventureSetup.longestTimeLimit, content: GameContent = content
    ) throws -> Adventure {
        try Adventure(
            setup: AdventureSetup(route: route, party: party, tickInterval: tickInterval, timeLimit: timeLimit, seed: seed),
            content: content)
    }

    /// Every tick's state and events, from the start to the end.
    static func play(_ adventure: Adventure, commands: [ScheduledCommand] = []) -> [(state: AdventureState, events: [GameEvent])] {
        var ticks: [(AdventureState, [GameEvent])] = []
        adventure.playToEnd(commands: commands) { ticks.append(($0, $1)) }
        return ticks
    }

    /// The event log as the JSON lines `rangers simulate --json` prints (without times).
    static func log(_ ticks: [(state: AdventureState, events: [GameEvent])]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return ticks.flatMap { tick in
            tick.events.map { "\(tick.state.tick) " + String(decoding: try! encoder.encode($0), as: UTF8.self) }
        }.joined(separator: "\n") + "\n"
    }

    /// Content with one boss and one route built for a test.
    static func content(boss: BossDefinition, heroes: [HeroDefinition] = content.heroes) -> GameContent {
        GameContent(heroes: heroes, bosses: [boss], routes: [Route(id: "test", name: "Test", bosses: [boss.id])],
                    rules: content.rules)
    }
}
