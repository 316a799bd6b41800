import Catalog
import Foundation
import Testing

/// The content check passes on what ships and names file and key for each kind of breakage.
@Suite struct ContentCheckTests {
    static let shipped = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Content")

    /// A scratch copy of the shipped content, broken by `edit`, checked, then removed.
    func problems(afterBreaking edit: (URL) throws -> Void) throws -> [String] {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("content-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: Self.shipped, to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        try edit(copy)
        return LoadedContent.check(copy).map(\.description)
    }

    func replace(_ old: String, with new: String, in file: String) -> (URL) throws -> Void {
        { directory in
            let url = directory.appendingPathComponent(file)
            let text = try String(contentsOf: url, encoding: .utf8)
            #expect(text.contains(old), "the test's edit must apply to \(file)")
            try text.replacingOccurrences(of: old, with: new).write(to: url, atomically: true, encoding: .utf8)
        }
    }

    @Test func shippedContentPasses() throws {
        #expect(LoadedContent.check(Self.shipped).map(\.description) == [])
        let loaded = try LoadedContent.load(from: Self.shipped)
        #expect(loaded.game.heroes.map(\.name) == ["Power Panda", "Egghead", "Spouty", "Mr. Spook", "Cake", "Octo"])
        #expect(loaded.game.bosses.count >= 6)
        #expect(loaded.sounds.keys.sorted() == ["AdventureStart.caf", "BossDefeated.caf", "Defeat.caf", "HeroDown.caf", "Victory.caf"])
    }

    @Test func duplicateHeroID() throws {
        let found = try problems(afterBreaking: replace(#""id": "egghead""#, with: #""id": "power-panda""#, in: "heroes.json"))
        #expect(found == ["heroes.json: heroes[1] (power-panda).id: 'power-panda' is used twice"])
    }

    @Test func malformedID() throws {
        let found = try problems(afterBreaking: replace(#""id": "octo""#, with: #""id": "Octo The Great""#, in: "heroes.json"))
        #expect(found == ["heroes.json: heroes[5] (Octo The Great).id: 'Octo The Great' must be 1–32 lowercase letters, digits and single hyphens"])
    }

    @Test func wrongTypeNamesThePath() throws {
        let found = try problems(afterBreaking: replace(#""attack": 32"#, with: #""attack": "lots""#, in: "heroes.json"))
        #expect(found == ["heroes.json: heroes[2].stats.attack: should be a whole number"])
    }

    @Test func missingKeyNamesThePath() throws {
        let found = try problems(afterBreaking: replace(#""rank": "minion","#, with: "", in: "bosses.json"))
        #expect(found == ["bosses.json: bosses[0].rank: is missing"])
    }

    @Test func misspeltOptionalKey() throws {
        let found = try problems(afterBreaking: replace(#""enrage": { "belowHealthPercent": 30, "attackPercent": 150 }"#, with: #""enrag": { "belowHealthPercent": 30, "attackPercent": 150 }"#, in: "bosses.json"))
        #expect(found == ["bosses.json: bosses[1].enrag: unknown key (misspelt?)"])
    }

    @Test func invalidJSON() throws {
        let found = try problems(afterBreaking: replace(#""startingPotions": 3,"#, with: #""startingPotions": 3,,"#, in: "rules.json"))
        #expect(found.count == 1)
        #expect(found.first?.hasPrefix("rules.json: is not valid JSON") == true)
    }

    @Test func outOfRangeValues() throws {
        let found = try problems(afterBreaking: replace(#""critChance": 0.15"#, with: #""critChance": 1.5"#, in: "heroes.json"))
        #expect(found == ["heroes.json: heroes[2] (spouty).stats.critChance: is 1.5, must be 0.0…1.0"])
        let loot = try problems(afterBreaking: replace(#""common": 60"#, with: #""common": 990"#, in: "rules.json"))
        #expect(loot == ["rules.json: lootPerMille: chances add up to more than 1000 per mille"])
    }

    @Test func routeWithUnknownBoss() throws {
        let found = try problems(afterBreaking: replace(#""bosses": ["thorn-wolf","#, with: #""bosses": ["thorn-wolff","#, in: "bosses.json"))
        #expect(found == ["bosses.json: routes[0] (whispering-woods).bosses[0]: unknown boss 'thorn-wolff'"])
    }

    @Test func bossWithoutAbilities() throws {
        let found = try problems(afterBreaking: replace(#""abilities": [ { "kind": "strike", "weight": 1, "powerPercent": 100 } ]"#, with: #""abilities": []"#, in: "bosses.json"))
        #expect(found == ["bosses.json: bosses[0] (thorn-wolf).abilities: must not be empty"])
    }

    @Test func missingTranslation() throws {
        let found = try problems(afterBreaking: { directory in
            try editCatalog(directory) { strings in
                var entry = strings["event.heroRevived"] as! [String: Any]
                var localizations = entry["localizations"] as! [String: Any]
                localizations["ko"] = nil
                entry["localizations"] = localizations
                strings["event.heroRevived"] = entry
            }
        })
        #expect(found == ["Localizable.xcstrings: event.heroRevived [ko]: translation is missing"])
    }

    @Test func placeholderCountDiffersBetweenLanguages() throws {
        let found = try problems(afterBreaking: { directory in
            try editCatalog(directory) { strings in setText(&strings, "event.bossHealed", "vi", "%1$@ hồi máu") }
        })
        #expect(found == ["Localizable.xcstrings: event.bossHealed [vi]: has 1 placeholder(s), en has 2"])
    }

    @Test func numericPlaceholderIsRefused() throws {
        let found = try problems(afterBreaking: { directory in
            try editCatalog(directory) { strings in setText(&strings, "event.bossHealed", "zh-Hans", "%1$@ 恢复了 %2$d 点生命") }
        })
        #expect(found == ["Localizable.xcstrings: event.bossHealed [zh-Hans]: argument 2 is %d; arguments are strings, use %@"])
    }

    @Test func strayPercentSign() throws {
        let found = try problems(afterBreaking: { directory in
            try editCatalog(directory) { strings in setText(&strings, "event.victory", "en", "Victory! 100% done.") }
        })
        #expect(found == ["Localizable.xcstrings: event.victory [en]: '%' is not followed by a valid placeholder (write '%%' for a percent sign)"])
    }

    @Test func keyTheGameEmitsIsMissing() throws {
        let found = try problems(afterBreaking: { directory in
            try editCatalog(directory) { strings in strings["event.lootFound.legendary"] = nil }
        })
        #expect(found == ["Localizable.xcstrings: event.lootFound.legendary: is missing; the server emits it"])
    }

    @Test func requirementsOfTheRestOfTheServerAreChecked() {
        let requirements = ContentRequirements(
            texts: [("alert.victory.body", 1), ("alert.victory.title", 2), ("alert.fireworks.title", 0)],
            sounds: ["Victory.caf", "Fireworks.caf"])
        #expect(LoadedContent.check(Self.shipped, requiring: requirements).map(\.description) == [
            "Localizable.xcstrings: alert.victory.title: takes 0 argument(s), the server gives 2",
            "Localizable.xcstrings: alert.fireworks.title: is missing; the server emits it",
            "Sounds/Fireworks.caf: is missing; the server names it in alerts",
        ])
    }

    @Test func soundOverThirtySeconds() throws {
        let found = try problems(afterBreaking: { directory in
            try CAF.pcm8(seconds: 31, rate: 8_000).write(to: directory.appendingPathComponent("Sounds/Long.caf"))
        })
        #expect(found == ["Sounds/Long.caf: lasts 31.0 s; iOS plays the default sound instead of one of 30 s or more"])
    }

    @Test func unreadableSound() throws {
        let found = try problems(afterBreaking: { directory in
            try Data("not audio".utf8).write(to: directory.appendingPathComponent("Sounds/Broken.caf"))
        })
        #expect(found == ["Sounds/Broken.caf: unreadable: not a CAF file (no 'caff' header)"])
    }

    @Test func missingFile() throws {
        let found = try problems(afterBreaking: { try FileManager.default.removeItem(at: $0.appendingPathComponent("rules.json")) })
        #expect(found.count == 1)
        #expect(found.first?.hasPrefix("rules.json: cannot be read") == true)
    }

    @Test func loadThrowsWithEveryProblem() throws {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("content-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: Self.shipped, to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        try replace(#""id": "egghead""#, with: #""id": "power-panda""#, in: "heroes.json")(copy)
        try replace(#""startingPotions": 3"#, with: #""startingPotions": -1"#, in: "rules.json")(copy)
        #expect(throws: ContentError.self) { try LoadedContent.load(from: copy) }
        #expect(LoadedContent.check(copy).count == 2)
    }

    @Test func versionChangesWithGameDataOnly() throws {
        func version(_ edit: (URL) throws -> Void) throws -> String {
            let copy = FileManager.default.temporaryDirectory.appendingPathComponent("content-\(UUID().uuidString)")
            try FileManager.default.copyItem(at: Self.shipped, to: copy)
            defer { try? FileManager.default.removeItem(at: copy) }
            try edit(copy)
            return try LoadedContent.load(from: copy).version
        }
        let original = try version { _ in }
        #expect(try version(replace(#""attack": 32"#, with: #""attack": 33"#, in: "heroes.json")) != original)
        #expect(try version(replace(#""startingPotions": 3"#, with: #""startingPotions": 4"#, in: "rules.json")) != original)
        #expect(try version(editCatalogText) == original)
    }

    private func editCatalogText(_ directory: URL) throws {
        try editCatalog(directory) { setText(&$0, "event.victory", "en", "Victory! All bosses are down.") }
    }
}

func editCatalog(_ directory: URL, _ edit: (inout [String: Any]) -> Void) throws {
    let url = directory.appendingPathComponent("Localizable.xcstrings")
    var catalog = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
    var strings = catalog["strings"] as! [String: Any]
    edit(&strings)
    catalog["strings"] = strings
    try JSONSerialization.data(withJSONObject: catalog).write(to: url)
}

func setText(_ strings: inout [String: Any], _ key: String, _ language: String, _ value: String) {
    var entry = strings[key] as! [String: Any]
    var localizations = entry["localizations"] as! [String: Any]
    localizations[language] = ["stringUnit": ["state": "translated", "value": value]]
    entry["localizations"] = localizations
    strings[key] = entry
}
