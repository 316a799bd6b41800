import Game

/// An event as the JSON text the store and session files hold: its `Codable`
/// form with keys sorted, nothing between tokens and `/` escaped, exactly as
/// `JSONEncoder` with `.sortedKeys` writes it (a test holds the two to the same
/// bytes for every kind). Comparing this text with the saved text is how a
/// replay checks an 8-hour log in well under a second: going through `Codable`
/// for 150,000 events, either way, takes longer than the whole replay may.
enum CanonicalJSON {
    static func text(of event: GameEvent) -> String {
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

    private mutating func separate(_ key: String) {
        text += isEmpty ? "\"" : ",\""
        text += key + "\":"
        isEmpty = false
    }
}
