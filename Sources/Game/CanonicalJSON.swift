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
        var object = JSONWriter(capacity: 112)
        object.open(.object)
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
        object.close(.object)
        return object.text
    }

    /// An adventure's state in the same form: what the store writes after every
    /// tick, where `JSONEncoder` cost more than the rest of the tick's write.
    public static func text(of state: AdventureState) -> String {
        // Keys in sorted order at every level.
        var object = JSONWriter(capacity: 640)
        object.open(.object)
        object.key("boss")
        write(state.boss, to: &object)
        object.add("bossIndex", state.bossIndex)
        object.key("heroes")
        object.open(.array)
        for hero in state.heroes { write(hero, to: &object) }
        object.close(.array)
        object.add("potions", state.potions)
        let (s0, s1, s2, s3) = state.random.words
        object.key("random")
        object.open(.object)
        object.add("s0", s0)
        object.add("s1", s1)
        object.add("s2", s2)
        object.add("s3", s3)
        object.close(.object)
        object.add("status", state.status.rawValue)
        object.add("tick", state.tick)
        object.close(.object)
        return object.text
    }

    private static func write(_ boss: BossState, to object: inout JSONWriter) {
        object.open(.object)
        object.add("boss", boss.boss.rawValue)
        object.add("enraged", boss.enraged)
        object.add("health", boss.health)
        object.add("maxHealth", boss.maxHealth)
        object.add("rank", boss.rank.rawValue)
        object.add("shield", boss.shield)
        object.add("usedHealPhase", boss.usedHealPhase)
        object.add("usedShieldPhase", boss.usedShieldPhase)
        object.close(.object)
    }

    private static func write(_ hero: HeroState, to object: inout JSONWriter) {
        object.open(.object)
        object.add("health", hero.health)
        object.add("hero", hero.hero.rawValue)
        object.add("maxHealth", hero.maxHealth)
        object.add("player", hero.player.rawValue)
        object.close(.object)
    }
}

/// A JSON text written as UTF-8 into one buffer: building it from strings
/// allocated and copied a string per key and value, more than the rest of
/// storing a tick. Values follow keys; objects and arrays are separated by commas
/// where they follow another member.
private struct JSONWriter {
    private var bytes: [UInt8] = []
    private var followsMember = false

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    var text: String { String(decoding: bytes, as: UTF8.self) }

    enum Container {
        case object, array
    }

    mutating func open(_ container: Container) {
        separate()
        bytes.append(container == .object ? UInt8(ascii: "{") : UInt8(ascii: "["))
    }

    mutating func close(_ container: Container) {
        bytes.append(container == .object ? UInt8(ascii: "}") : UInt8(ascii: "]"))
        followsMember = true
    }

    mutating func key(_ key: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        literal(key)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    mutating func add(_ key: StaticString, _ value: String) {
        self.key(key)
        string(value)
        followsMember = true
    }

    mutating func add(_ key: StaticString, _ value: Int) {
        self.key(key)
        decimal(UInt64(value.magnitude), negative: value < 0)
        followsMember = true
    }

    mutating func add(_ key: StaticString, _ value: UInt64) {
        self.key(key)
        decimal(value, negative: false)
        followsMember = true
    }

    mutating func add(_ key: StaticString, _ value: Bool) {
        self.key(key)
        literal(value ? "true" : "false")
        followsMember = true
    }

    /// A JSON string as `JSONEncoder` writes it, `/` escaped too: copied a run of
    /// bytes at a time between the bytes that need an escape (all ASCII).
    mutating func string(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
            var run = 0
            for (index, byte) in utf8.enumerated()
            where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "/") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run..<index]))
                escape(byte)
                run = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func escape(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): literal(#"\""#)
        case UInt8(ascii: "\\"): literal(#"\\"#)
        case UInt8(ascii: "/"): literal(#"\/"#)
        case 0x0A: literal(#"\n"#)
        case 0x0D: literal(#"\r"#)
        case 0x09: literal(#"\t"#)
        case 0x08: literal(#"\b"#)
        case 0x0C: literal(#"\f"#)
        default:
            let hex = String(byte, radix: 16)
            bytes.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
        }
    }

    private mutating func literal(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    private mutating func decimal(_ magnitude: UInt64, negative: Bool) {
        if negative { bytes.append(UInt8(ascii: "-")) }
        let start = bytes.count
        var rest = magnitude
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        bytes[start...].reverse()
    }

    private mutating func separate() {
        if followsMember { bytes.append(UInt8(ascii: ",")) }
        followsMember = false
    }
}
