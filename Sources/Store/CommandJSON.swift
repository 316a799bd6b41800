import Foundation
import Game
import Vocabulary

/// `Game.Command` as stored: the flat JSON of `ScheduledCommand` without the tick,
/// which a queued command does not have yet (the tick lives in its own column).
public enum CommandJSON {
    private struct Flat: Codable {
        var type: String
        var player: PlayerID?
        var hero: HeroID?
    }

    public static func encode(_ command: Command) throws -> String {
        let flat: Flat = switch command {
        case .usePotion(let player, let hero): Flat(type: "usePotion", player: player, hero: hero)
        case .endAdventure: Flat(type: "endAdventure")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(flat), as: UTF8.self)
    }

    public static func decode(_ json: String) throws -> Command {
        let flat = try JSONDecoder().decode(Flat.self, from: Data(json.utf8))
        switch (flat.type, flat.player, flat.hero) {
        case ("usePotion", let player?, let hero?): return .usePotion(player: player, hero: hero)
        case ("endAdventure", _, _): return .endAdventure
        default: throw StoreError.corrupt("command \(json)")
        }
    }
}

/// An adventure's roster as both engines store it: JSON with sorted keys.
public enum RosterJSON {
    public static func text(of roster: [PartyMember]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(roster), as: UTF8.self)
    }
}
