import Foundation
import Testing

@Suite struct SimulateCommandTests {
    let trio = ["simulate", "--seed", "42", "--heroes", "power-panda,egghead,spouty"]

    func jsonLines(_ output: String) throws -> [[String: Any]] {
        try output.split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test func jsonOutputIsByteIdenticalAcrossRunsAndEndsTheAdventure() async throws {
        let first = try await RangersProcess.run(trio + ["--json"])
        let second = try await RangersProcess.run(trio + ["--json"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == second.stdout)
        let lines = try jsonLines(first.stdout)
        #expect(lines.first?["kind"] as? String == "adventure")
        #expect(lines.dropFirst().allSatisfy { $0["kind"] as? String == "event" })
        let last = try #require(lines.last)
        #expect(["victory", "partyWiped", "timeLimitReached"].contains(last["type"] as? String))
        // Ticks never go backwards.
        let ticks = lines.dropFirst().compactMap { $0["tick"] as? Int }
        #expect(ticks == ticks.sorted())
    }

    /// `simulate --pushes` decides with the policy `serve` would use: the same
    /// `RANGERS_POLICY_*` variables, refused by name when they are wrong.
    @Test func pushesAreDecidedWithThePolicyFromTheEnvironment() async throws {
        let arguments = trio + ["--json", "--pushes"]
        let standard = try jsonLines(try await RangersProcess.run(arguments).stdout).filter { $0["kind"] as? String == "push" }
        #expect(standard.contains { $0["priority"] as? Int == 10 })
        let noBudget = try await RangersProcess.run(arguments, environment: [
            "RANGERS_POLICY_HIGH_PRIORITY_PER_HOUR": "0", "RANGERS_POLICY_HIGH_PRIORITY_PER_HOUR_WITH_FREQUENT_UPDATES": "0",
        ])
        #expect(noBudget.status == 0, "\(noBudget.stderr)")
        let demoted = try jsonLines(noBudget.stdout).filter { $0["kind"] as? String == "push" }
        #expect(demoted.count == standard.count)
        #expect(demoted.allSatisfy { $0["priority"] as? Int == 5 }, "a budget of 0 demotes every push")
        let wrong = try await RangersProcess.run(arguments, environment: ["RANGERS_POLICY_ROUTINE_SPACING": "soon"])
        #expect(wrong.status == 2)
        #expect(wrong.stderr.contains("RANGERS_POLICY_ROUTINE_SPACING"))
    }

    @Test func differentSeedsGiveDifferentAdventures() async throws {
        let a = try await RangersProcess.run(["simulate", "--seed", "1", "--json"])
        let b = try await RangersProcess.run(["simulate", "--seed", "2", "--json"])
        #expect(a.status == 0 && b.status == 0)
        #expect(a.stdout != b.stdout)
    }

    @Test func textTimelineIsReadableAndLocalized() async throws {
        let english = try await RangersProcess.run(trio)
        #expect(english.status == 0)
        #expect(english.stdout.contains("Party: 🐼 Power Panda (player-1) · 🦄 Egghead (player-2) · 🐳 Spouty (player-3)"))
        #expect(english.stdout.contains("Thorn Wolf is defeated!"))
        let korean = try await RangersProcess.run(trio + ["--language", "ko"])
        #expect(korean.status == 0)
        #expect(!korean.stdout.contains("is defeated!"))
        #expect(korean.stdout.contains("Thorn Wolf"))
    }

    @Test func commandsFileAppliesPotionsAndEnds() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("commands-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(#"[{"tick": 30, "type": "usePotion", "player": "player-2", "hero": "power-panda"}, {"tick": 31, "type": "endAdventure"}]"#.utf8).write(to: file)
        let result = try await RangersProcess.run(trio + ["--json", "--commands", file.path])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try jsonLines(result.stdout)
        let potion = try #require(lines.first { $0["type"] as? String == "potionUsed" || $0["type"] as? String == "potionRejected" })
        #expect(potion["tick"] as? Int == 30)
        #expect(potion["player"] as? String == "player-2")
        #expect(lines.last?["type"] as? String == "adventureEndedByGameMaster")
        #expect(lines.last?["tick"] as? Int == 31)
    }

    @Test func pushesAreByteIdenticalAndFollowEachTicksEvents() async throws {
        let arguments = trio + ["--json", "--pushes", "--push-to-start", "--frequent-updates", "off"]
        let first = try await RangersProcess.run(arguments)
        let second = try await RangersProcess.run(arguments)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == second.stdout)
        let lines = try jsonLines(first.stdout)
        let pushes = lines.filter { $0["kind"] as? String == "push" }
        // Three push-to-start pushes before the first tick, then updates, then one end per activity.
        let starts = pushes.prefix(3)
        #expect(starts.allSatisfy { $0["tick"] as? Int == 0 && ($0["recipient"] as? String)?.hasPrefix("push-to-start:") == true })
        let ends = pushes.filter { (($0["payload"] as? [String: Any])?["aps"] as? [String: Any])?["event"] as? String == "end" }
        #expect(ends.count == 3)
        for push in pushes {
            #expect(push["pushType"] as? String == "liveactivity")
            #expect(push["topic"] as? String == "com.example.apple-samplecode.Emoji-Rangers.push-type.liveactivity")
            #expect([5, 10].contains(push["priority"] as? Int))
            #expect(!(push["reason"] as? String ?? "").isEmpty)
        }
        // The default start time is fixed, so timestamps are too.
        let firstUpdate = try #require(pushes.first { $0["tick"] as? Int == 1 })
        let aps = try #require((firstUpdate["payload"] as? [String: Any])?["aps"] as? [String: Any])
        #expect(aps["timestamp"] as? Int == 1_767_225_600 + 10)
    }

    @Test(arguments: [
        (["simulate", "--pushes", "--frequent-updates", "sometimes"], "frequent-updates"),
        (["simulate", "--pushes", "--start", "yesterday"], "cannot read start time 'yesterday'"),
        (["simulate", "--heroes", "power-panda,pikachu"], "unknown hero 'pikachu'"),
        (["simulate", "--heroes", ""], "a party has 1 to 6 heroes, not 0"),
        (["simulate", "--heroes", "power-panda,egghead,spouty,mr-spook,cake,octo,power-panda"], "a party has 1 to 6 heroes, not 7"),
        (["simulate", "--route", "moon-base"], "unknown route 'moon-base'"),
        (["simulate", "--time-limit", "9h"], "at most 8 hours"),
        (["simulate", "--time-limit", "soon"], "cannot read duration 'soon'"),
        (["simulate", "--seed", "abc"], "seed"),
        (["simulate", "--language", "fr"], "unknown language 'fr'"),
        (["simulate", "--commands", "/nonexistent/commands.json"], "cannot read commands file"),
    ])
    func badInputExitsWithTwoAndAMessage(arguments: [String], message: String) async throws {
        let result = try await RangersProcess.run(arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test(arguments: [
        (#"{"tick": 3}"#, "malformed"),
        (#"[{"tick": 3, "type": "dance"}]"#, "malformed"),
        (#"[{"tick": 0, "type": "endAdventure"}]"#, "tick must be 1 or more"),
        (#"[{"tick": 3, "type": "usePotion", "player": "player-9", "hero": "egghead"}]"#, "player 'player-9' is not in the party"),
        (#"[{"tick": 3, "type": "usePotion", "player": "player-1", "hero": "octo"}]"#, "hero 'octo' is not in the party"),
    ])
    func malformedCommandsFileExitsWithTwo(contents: String, message: String) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("commands-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(contents.utf8).write(to: file)
        let result = try await RangersProcess.run(trio + ["--commands", file.path])
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }
}

@Suite struct ContentCommandTests {
    @Test func shippedContentPasses() async throws {
        let result = try await RangersProcess.run(["content", "check"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("Content OK"))
        #expect(result.stdout.contains("6 heroes, 9 bosses, 4 routes"))
    }

    @Test func brokenCopyFailsWithFileAndKey() async throws {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("content-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: RangersProcess.repositoryRoot.appendingPathComponent("Content"), to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        let heroes = copy.appendingPathComponent("heroes.json")
        let text = try String(contentsOf: heroes, encoding: .utf8).replacingOccurrences(of: #""id": "cake""#, with: #""id": "octo""#)
        try text.write(to: heroes, atomically: true, encoding: .utf8)

        let result = try await RangersProcess.run(["content", "check", "--content", copy.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("heroes.json: heroes[5] (octo).id: 'octo' is used twice"), "\(result.stderr)")
        // The environment variable is honoured too.
        let viaEnvironment = try await RangersProcess.run(["content", "check"], environment: ["RANGERS_CONTENT": copy.path])
        #expect(viaEnvironment.status == 1)
    }

    @Test func pushPolicyTextsAndSoundsAreChecked() async throws {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("content-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: RangersProcess.repositoryRoot.appendingPathComponent("Content"), to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        try FileManager.default.removeItem(at: copy.appendingPathComponent("Sounds/HeroDown.caf"))
        let result = try await RangersProcess.run(["content", "check", "--content", copy.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("Sounds/HeroDown.caf: is missing; the server names it in alerts"), "\(result.stderr)")
    }

    @Test func missingContentFolderIsAClearError() async throws {
        let result = try await RangersProcess.run(["content", "check", "--content", "/nonexistent/Content"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("heroes.json: cannot be read"))
    }
}
