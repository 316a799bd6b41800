import Catalog
import Foundation
import Game

/// Prints an adventure as it is played: readable text, or one JSON object per line
/// (`{"kind":"adventure",…}` first, then `{"kind":"event","tick":…,…}`).
struct TimelinePrinter {
    let content: LoadedContent
    let adventure: Adventure
    let language: String
    let json: Bool
    private var buffer = ""
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    init(content: LoadedContent, adventure: Adventure, language: String, json: Bool) {
        self.content = content
        self.adventure = adventure
        self.language = language
        self.json = json
    }

    mutating func begin() {
        let setup = adventure.setup
        if json {
            line(AdventureLine(content: content.version, route: setup.route, party: setup.party, seed: setup.seed,
                               tickInterval: setup.tickInterval, timeLimit: setup.timeLimit))
            return
        }
        let route = content.game.route(setup.route)?.name ?? setup.route.rawValue
        buffer += "\(route) · seed \(setup.seed) · a tick every \(setup.tickInterval) s · "
            + "time limit \(clock(setup.timeLimit)) · content \(content.version)\n"
        buffer += "Party: " + zip(setup.party, adventure.heroes)
            .map { "\($1.avatar) \($1.name) (\($0.player))" }.joined(separator: " · ") + "\n"
        buffer += "Bosses: " + adventure.bosses.map { "\($0.avatar) \($0.name)" }.joined(separator: " → ") + "\n"
    }

    mutating func tick(_ state: AdventureState, _ events: [GameEvent]) {
        if json {
            for event in events { line(EventLine(tick: state.tick, time: state.tick * adventure.setup.tickInterval, event: event)) }
        } else {
            let boss = adventure.bosses[state.bossIndex]
            let heroes = zip(adventure.heroes, state.heroes)
                .map { "\($0.avatar) \($1.isKnockedDown ? "down" : String($1.health))" }.joined(separator: " ")
            buffer += "\ntick \(state.tick) · \(clock(state.tick * adventure.setup.tickInterval)) · "
                + "\(boss.avatar) \(state.boss.health)/\(state.boss.maxHealth) · \(heroes) · potions \(state.potions)\n"
            for event in events {
                buffer += "  " + content.strings.format(event.text(names: content.game), language: language) + "\n"
            }
        }
        if buffer.utf8.count > 1 << 16 { flush() }
    }

    mutating func flush() {
        FileHandle.standardOutput.write(Data(buffer.utf8))
        buffer = ""
    }

    private mutating func line(_ value: some Encodable) {
        // Encoding these plain values cannot fail.
        buffer += String(decoding: try! encoder.encode(value), as: UTF8.self) + "\n"
    }

    private func clock(_ seconds: Int) -> String {
        String(format: "%d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60)
    }
}

private struct AdventureLine: Encodable {
    let kind = "adventure"
    var content: String
    var route: RouteID
    var party: [PartyMember]
    var seed: UInt64
    var tickInterval: Int
    var timeLimit: Int
}

/// An event with its tick and time (seconds since the start) merged into one object.
private struct EventLine: Encodable {
    var tick: Int
    var time: Int
    var event: GameEvent

    private enum Field: String, CodingKey { case kind, tick, time }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Field.self)
        try container.encode("event", forKey: .kind)
        try container.encode(tick, forKey: .tick)
        try container.encode(time, forKey: .time)
        try event.encode(to: encoder)
    }
}
