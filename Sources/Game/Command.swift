import Vocabulary

/// What players and the game master can ask of a running adventure. A command is
/// applied at the start of the tick it is scheduled for, before anyone acts.
public enum Command: Hashable, Sendable {
    /// Any member may use one of the party's potions on any hero of the party.
    case usePotion(player: PlayerID, hero: HeroID)
    case endAdventure
}

public struct ScheduledCommand: Hashable, Sendable {
    public var tick: Int
    public var command: Command

    public init(tick: Int, command: Command) {
        self.tick = tick
        self.command = command
    }
}

/// Flat JSON, as in a commands file: `{"tick": 12, "type": "usePotion",
/// "player": "player-1", "hero": "egghead"}` or `{"tick": 40, "type": "endAdventure"}`.
extension ScheduledCommand: Codable {
    private enum Field: String, CodingKey { case tick, type, player, hero }
    private enum Kind: String, Codable { case usePotion, endAdventure }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Field.self)
        tick = try c.decode(Int.self, forKey: .tick)
        switch try c.decode(Kind.self, forKey: .type) {
        case .usePotion:
            command = .usePotion(player: try c.decode(PlayerID.self, forKey: .player),
                                 hero: try c.decode(HeroID.self, forKey: .hero))
        case .endAdventure:
            command = .endAdventure
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Field.self)
        try c.encode(tick, forKey: .tick)
        switch command {
        case .usePotion(let player, let hero):
            try c.encode(Kind.usePotion, forKey: .type)
            try c.encode(player, forKey: .player)
            try c.encode(hero, forKey: .hero)
        case .endAdventure:
            try c.encode(Kind.endAdventure, forKey: .type)
        }
    }
}
