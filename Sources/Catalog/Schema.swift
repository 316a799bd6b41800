/// The keys each content file may hold. `Codable` ignores keys it does not know,
/// so a misspelt optional key ("enrag") would silently drop a boss's phase;
/// this catches it.
indirect enum Schema: Sendable {
    case value
    case list(Schema)
    case object([String: Schema])

    static let heroes = object(["heroes": .list(.object([
        "id": .value, "name": .value, "avatar": .value, "heroType": .value, "level": .value,
        "exp": .value, "bio": .value,
        "stats": .object(["maxHealth": .value, "attack": .value, "defense": .value, "speed": .value,
                          "critChance": .value, "healing": .value]),
    ]))])

    static let bosses = object([
        "bosses": .list(.object([
            "id": .value, "name": .value, "avatar": .value, "rank": .value, "maxHealth": .value,
            "attack": .value, "defense": .value, "speed": .value,
            "abilities": .list(.object(["kind": .value, "weight": .value, "powerPercent": .value])),
            "enrage": .object(["belowHealthPercent": .value, "attackPercent": .value]),
            "healPhase": .object(["belowHealthPercent": .value, "healPercent": .value]),
            "shieldPhase": .object(["belowHealthPercent": .value, "shieldPercent": .value]),
        ])),
        "routes": .list(.object(["id": .value, "name": .value, "bosses": .list(.value)])),
    ])

    static let rules = object([
        "startingPotions": .value, "potionHealPercent": .value, "variancePercent": .value,
        "criticalDamagePercent": .value, "healBelowPercent": .value, "tankThreat": .value,
        "lootPerMille": .object(["common": .value, "rare": .value, "legendary": .value]),
    ])

    /// Paths like `bosses[2].enrag` of keys the schema does not name.
    func unknownKeys(in json: Any, at path: String = "") -> [String] {
        switch self {
        case .value:
            return []
        case .list(let element):
            guard let items = json as? [Any] else { return [] }
            return items.enumerated().flatMap { element.unknownKeys(in: $1, at: "\(path)[\($0)]") }
        case .object(let fields):
            guard let object = json as? [String: Any] else { return [] }
            return object.keys.sorted().flatMap { key -> [String] in
                let childPath = path.isEmpty ? key : "\(path).\(key)"
                guard let field = fields[key] else { return [childPath] }
                return field.unknownKeys(in: object[key]!, at: childPath)
            }
        }
    }
}
