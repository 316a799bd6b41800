import Game

/// The rules content must follow for the game to be playable and its ids safe
/// to put in URLs, logs and push payloads.
enum GameContentCheck {
    static func problems(in content: GameContent) -> [ContentProblem] {
        var problems: [ContentProblem] = []
        func report(_ file: String, _ location: String, _ message: String) {
            problems.append(ContentProblem(file: file, location: location, message: message))
        }
        func checkID(_ id: String, file: String, at location: String, seen: inout Set<String>) {
            if !isValidID(id) {
                report(file, location + ".id", "'\(id)' must be 1–32 lowercase letters, digits and single hyphens")
            }
            if !seen.insert(id).inserted { report(file, location + ".id", "'\(id)' is used twice") }
        }
        func checkRange<T: Comparable>(_ value: T, _ range: ClosedRange<T>, _ file: String, _ location: String) {
            if !range.contains(value) { report(file, location, "is \(value), must be \(range.lowerBound)…\(range.upperBound)") }
        }
        func checkName(_ name: String, _ file: String, _ location: String) {
            if name.trimmingCharacters(in: .whitespaces).isEmpty || name.count > 40 {
                report(file, location, "must be 1–40 characters")
            }
        }

        let heroesFile = LoadedContent.heroesFile
        if content.heroes.isEmpty { report(heroesFile, "heroes", "must not be empty") }
        var heroIDs = Set<String>()
        for (index, hero) in content.heroes.enumerated() {
            let at = "heroes[\(index)] (\(hero.id))"
            checkID(hero.id.rawValue, file: heroesFile, at: at, seen: &heroIDs)
            checkName(hero.name, heroesFile, at + ".name")
            if hero.avatar.count != 1 { report(heroesFile, at + ".avatar", "must be a single emoji") }
            checkRange(hero.level, 1...100, heroesFile, at + ".level")
            checkRange(hero.exp, 0...10_000_000, heroesFile, at + ".exp")
            let stats = hero.stats
            checkRange(stats.maxHealth, 1...100_000, heroesFile, at + ".stats.maxHealth")
            checkRange(stats.attack, 0...10_000, heroesFile, at + ".stats.attack")
            checkRange(stats.defense, 0...10_000, heroesFile, at + ".stats.defense")
            checkRange(stats.speed, 0...1_000, heroesFile, at + ".stats.speed")
            checkRange(stats.critChance, 0...1, heroesFile, at + ".stats.critChance")
            checkRange(stats.healing, 0...10_000, heroesFile, at + ".stats.healing")
            if hero.heroType == .healer, stats.healing == 0 {
                report(heroesFile, at + ".stats.healing", "a healer needs healing above 0")
            }
        }

        let bossesFile = LoadedContent.bossesFile
        var bossIDs = Set<String>()
        for (index, boss) in content.bosses.enumerated() {
            let at = "bosses[\(index)] (\(boss.id))"
            checkID(boss.id.rawValue, file: bossesFile, at: at, seen: &bossIDs)
            checkName(boss.name, bossesFile, at + ".name")
            if boss.avatar.count != 1 { report(bossesFile, at + ".avatar", "must be a single emoji") }
            checkRange(boss.maxHealth, 1...1_000_000, bossesFile, at + ".maxHealth")
            checkRange(boss.attack, 0...10_000, bossesFile, at + ".attack")
            checkRange(boss.defense, 0...10_000, bossesFile, at + ".defense")
            checkRange(boss.speed, 0...1_000, bossesFile, at + ".speed")
            if boss.abilities.isEmpty { report(bossesFile, at + ".abilities", "must not be empty") }
            for (i, ability) in boss.abilities.enumerated() {
                checkRange(ability.weight, 1...1_000, bossesFile, at + ".abilities[\(i)].weight")
                checkRange(ability.powerPercent, 1...1_000, bossesFile, at + ".abilities[\(i)].powerPercent")
            }
            if let enrage = boss.enrage {
                checkRange(enrage.belowHealthPercent, 1...99, bossesFile, at + ".enrage.belowHealthPercent")
                checkRange(enrage.attackPercent, 100...1_000, bossesFile, at + ".enrage.attackPercent")
            }
            if let phase = boss.healPhase {
                checkRange(phase.belowHealthPercent, 1...99, bossesFile, at + ".healPhase.belowHealthPercent")
                checkRange(phase.healPercent, 1...100, bossesFile, at + ".healPhase.healPercent")
            }
            if let phase = boss.shieldPhase {
                checkRange(phase.belowHealthPercent, 1...99, bossesFile, at + ".shieldPhase.belowHealthPercent")
                checkRange(phase.shieldPercent, 1...100, bossesFile, at + ".shieldPhase.shieldPercent")
            }
        }
        if content.routes.isEmpty { report(bossesFile, "routes", "must not be empty") }
        var routeIDs = Set<String>()
        for (index, route) in content.routes.enumerated() {
            let at = "routes[\(index)] (\(route.id))"
            checkID(route.id.rawValue, file: bossesFile, at: at, seen: &routeIDs)
            checkName(route.name, bossesFile, at + ".name")
            if route.bosses.isEmpty { report(bossesFile, at + ".bosses", "must not be empty") }
            for (i, boss) in route.bosses.enumerated() where content.boss(boss) == nil {
                report(bossesFile, at + ".bosses[\(i)]", "unknown boss '\(boss)'")
            }
        }

        let rulesFile = LoadedContent.rulesFile
        let rules = content.rules
        checkRange(rules.startingPotions, 0...99, rulesFile, "startingPotions")
        checkRange(rules.potionHealPercent, 1...100, rulesFile, "potionHealPercent")
        checkRange(rules.variancePercent, 0...50, rulesFile, "variancePercent")
        checkRange(rules.criticalDamagePercent, 100...1_000, rulesFile, "criticalDamagePercent")
        checkRange(rules.healBelowPercent, 1...100, rulesFile, "healBelowPercent")
        checkRange(rules.tankThreat, 1...100, rulesFile, "tankThreat")
        let loot = rules.lootPerMille
        for (name, value) in [("common", loot.common), ("rare", loot.rare), ("legendary", loot.legendary)] {
            checkRange(value, 0...1_000, rulesFile, "lootPerMille.\(name)")
        }
        if loot.common + loot.rare + loot.legendary > 1_000 {
            report(rulesFile, "lootPerMille", "chances add up to more than 1000 per mille")
        }
        return problems
    }

    static func isValidID(_ id: String) -> Bool {
        let parts = id.split(separator: "-", omittingEmptySubsequences: false)
        return (1...32).contains(id.utf8.count)
            && parts.allSatisfy { !$0.isEmpty && $0.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) } }
    }
}
