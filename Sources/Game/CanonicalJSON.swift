/// An event as the JSON text the store and session files hold: its `Codable`
/// form with keys sorted, nothing between tokens and `/` escaped, exactly as
/// `JSONEncoder` with `.sortedKeys` writes it (a test holds the two to the same
/// bytes for every kind). The ticker stores events in this form because `Codable`
/// costs more than the rest of a tick, and a replay compares its events with the
/// saved text as text: going through `Codable` for an 8-hour log's 150,000 events
/// takes longer than the whole replay may.
public enum CanonicalJSON {
    public static func text(of event: GameEvent) -> String {
        // Fields in sorted key order: amount, blocked, boss, healer, hero, player, rank, rarity, reason, type.
        var object = FlatObject()
        switch event {
        case .damageDealt(let hero, let boss, let amount, let blocked),
             .criticalHit(let hero, let boss, let amount, let blocked):
            object.add("amount", amount)
            object.add("blocked", blocked)
            object.add("boss", boss.rawValue)
            object.add("hero", hero.rawValue)
        case .damageTaken(let hero, let boss, let amount):
            object.add("amount", amount)
            object.add("boss", boss.rawValue)
            object.add("hero", hero.rawValue)
        case .smallHeal(let healer, let hero, let amount):
            object.add("amount", amount)
            object.add("healer", healer.rawValue)
            object.add("hero", hero.rawValue)
        case .lootFound(let hero, let rarity):
            object.add("hero", hero.rawValue)
            object.add("rarity", rarity.rawValue)
        case .heroKnockedDown(let hero, let boss):
            object.add("boss", boss.rawValue)
            object.add("hero", hero.rawValue)
        case .potionUsed(let player, let hero, let amount):
            object.add("amount", amount)
            object.add("hero", hero.rawValue)
            object.add("player", player.rawValue)
        case .heroRevived(let hero):
            object.add("hero", hero.rawValue)
        case .potionRejected(let player, let hero, let reason):
            object.add("hero", hero.rawValue)
            object.add("player", player.rawValue)
            object.add("reason", reason.rawValue)
        case .bossHealed(let boss, let amount), .bossShielded(let boss, let amount):
            object.add("amount", amount)
            object.add("boss", boss.rawValue)
        case .bossDefeated(let boss, let hero, let rank):
            object.add("boss", boss.rawValue)
            object.add("hero", hero.rawValue)
            object.add("rank", rank.rawValue)
        case .areaAttack(let boss), .bossEnraged(let boss), .nextBossAppears(let boss),
             .victory(let boss), .partyWiped(let boss), .timeLimitReached(let boss),
             .adventureEndedByGameMaster(let boss):
            object.add("boss", boss.rawValue)
        }
        object.add("type", event.kind.rawValue)
        return object.text + "}"
    }

    /// An adventure's state in the same form: what the store writes after every
    /// tick, where `JSONEncoder` cost more than the rest of the tick's write.
    public static func text(of state: AdventureState) -> String {
        // Keys in sorted order at every level.
        var object = FlatObject()
        object.add("boss", raw: text(of: state.boss))
        object.add("bossIndex", state.bossIndex)
        object.add("heroes", raw: "[" + state.heroes.map(text(of:)).joined(separator: ",") + "]")
        object.add("potions", state.potions)
        let (s0, s1, s2, s3) = state.random.words
        object.add("random", raw: "{\"s0\":\(s0),\"s1\":\(s1),\"s2\":\(s2),\"s3\":\(s3)}")
        object.add("status", state.status.rawValue)
        object.add("tick", state.tick)
        return object.text + "}"
    }

    private static func text(of boss: BossState) -> String {
        var object = FlatObject()
        object.add("boss", boss.boss.rawValue)
        object.add("enraged", boss.enraged)
        object.add("health", boss.health)
        object.add("maxHealth", boss.maxHealth)
        object.add("rank", boss.rank.rawValue)
        object.add("shield", boss.shield)
        object.add("usedHealPhase", boss.usedHealPhase)
        object.add("usedShieldPhase", boss.usedShieldPhase)
        return object.text + "}"
    }

    private static func text(of hero: HeroState) -> String {
        var object = FlatObject()
        object.add("health", hero.health)
        object.add("hero", hero.hero.rawValue)
        object.add("maxHealth", hero.maxHealth)
        object.add("player", hero.player.rawValue)
        return object.text + "}"
    }

    /// A JSON string as `JSONEncoder` writes it.
    static func quoted(_ string: String) -> String {
        let plain = string.utf8.allSatisfy { $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\")
            && $0 != UInt8(ascii: "/") }
        if plain { return "\"" + string + "\"" }
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "/": out += "\\/"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case let control where control.value < 0x20:
                let hex = String(control.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

private struct FlatObject {
    var text = "{"
    private var isEmpty = true

    init() { text.reserveCapacity(112) }

    mutating func add(_ key: String, _ value: String) {
        separate(key)
        text += CanonicalJSON.quoted(value)
    }

    mutating func add(_ key: String, _ value: Int) {
        separate(key)
        text += String(value)
    }

    mutating func add(_ key: String, _ value: Bool) {
        separate(key)
        text += value ? "true" : "false"
    }

    /// `json` is already JSON.
    mutating func add(_ key: String, raw json: String) {
        separate(key)
        text += json
    }

    private mutating func separate(_ key: String) {
        text += isEmpty ? "\"" : ",\""
        text += key + "\":"
        isEmpty = false
    }
}
