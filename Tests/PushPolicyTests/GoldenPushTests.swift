import Foundation
import Game
import PushPolicy
import Testing
import Wire

/// The exact bodies the policy sends, one file per kind of push, taken from real
/// adventures played through the policy and kept in Tests/PushPolicyTests/Golden.
/// Beside each, the headers the body doesn't show (priority, reason, expiration)
/// are checked against values worked out by hand from the adventure's log
/// (Tests/GameTests/Golden) and the default configuration.
/// Regenerate with `RANGERS_UPDATE_GOLDEN=1 swift test --filter GoldenPushTests`.
@Suite struct GoldenPushTests {
    static let golden = PolicyFixtures.testsDirectory.appendingPathComponent("Golden")
    static let startedAt = PolicyFixtures.startedAt  // 1_767_225_600

    /// Seed 42, Power Panda, Egghead and Spouty on Whispering Woods, a tick every
    /// 10 s: no one is knocked down, Thorn Wolf falls at tick 11, Goblin Chief at
    /// 41, Old Treant (and the adventure, won) at 112.
    static func woods(_ configuration: PushPolicyConfiguration = .standard) throws -> PolicyRun {
        try PolicyRun(try PolicyFixtures.adventure(), configuration: configuration)
    }

    /// Seed 5, the same trio on Haunted Keep: Power Panda is knocked down at tick 56.
    static func keep(_ configuration: PushPolicyConfiguration = .standard, frequentUpdates: Bool = true) throws -> PolicyRun {
        let adventure = try PolicyFixtures.adventure(seed: 5, route: "haunted-keep")
        return try PolicyRun(adventure, configuration: configuration,
                             recipients: PolicyFixtures.recipients(PolicyFixtures.trio, frequentUpdates: frequentUpdates))
    }

    @Test func routineUpdateIsLowPriorityWithoutAlert() throws {
        let run = try Self.woods()
        let first = try #require(run.ticks.first)
        #expect(first.state.tick == 1)
        let push = try #require(run.decision(for: "player-1", in: first))

        #expect(push.priority == .low)
        #expect(push.reason == "damageTaken: your hero took damage")
        #expect(!push.demoted)
        #expect(push.payload.timestamp.seconds == Self.startedAt + 10)
        // Stale after 3 missed ticks, but no sooner than 30 s: 30 s.
        #expect(push.payload.staleDate?.seconds == Self.startedAt + 10 + 30)
        #expect(push.expiration == Self.startedAt + 10 + 30)
        #expect(push.payload.alert == nil)
        #expect(push.payload.isUpdate)
        // Tick 1: Power Panda took 11 of 300; Thorn Wolf lost 16 + 31 + 19 of 700.
        #expect(PolicyFixtures.isClose(push.payload.contentState.currentHealthLevel, 289.0 / 300))
        #expect(PolicyFixtures.isClose(push.payload.contentState.boss.healthLevel, 634.0 / 700))
        // 20 + 80 × max(11/300, 66/700), rounded.
        #expect(push.payload.relevanceScore == 28)

        try compare(push, toGolden: "update-low")
    }

    @Test func heroKnockedDownIsHighPriorityWithLocalizedAlertAndSound() throws {
        let run = try Self.keep()
        let tick = try #require(run.tick { $0 == .heroKnockedDown(hero: "power-panda", boss: "ghost-queen") })
        #expect(tick.state.tick == 56)
        #expect(tick.state.isRunning)
        let push = try #require(run.decision(for: "player-1", in: tick))

        #expect(push.priority == .high)
        #expect(push.reason == "heroKnockedDown: your hero is down: use a potion")
        #expect(!push.demoted)
        #expect(push.payload.timestamp.seconds == Self.startedAt + 560)
        #expect(push.payload.staleDate?.seconds == Self.startedAt + 560 + 30)
        #expect(push.expiration == Self.startedAt + 560 + 30)
        #expect(push.payload.alert == Alert(
            title: .localized(key: "alert.heroKnockedDown.title", args: ["Power Panda"]),
            body: .localized(key: "alert.heroKnockedDown.body", args: ["Power Panda"]),
            sound: "HeroDown.caf"))
        #expect(push.payload.relevanceScore == 100)
        #expect(push.payload.contentState.currentHealthLevel == 0)
        #expect(push.payload.contentState.heroes.first { $0.id == "power-panda" }?.isKnockedDown == true)
        #expect(push.payload.contentState.latestEvent == EventText(key: "event.heroKnockedDown", args: ["Power Panda"]))

        try compare(push, toGolden: "update-high-hero-down")
    }

    @Test func overBudgetUpdateIsDemotedButKeepsItsAlert() throws {
        let noBudget = PushPolicyConfiguration(highPriorityPerHourWithFrequentUpdates: 0, highPriorityPerHour: 0)
        let run = try Self.keep(noBudget, frequentUpdates: false)
        let tick = try #require(run.tick { $0 == .heroKnockedDown(hero: "power-panda", boss: "ghost-queen") })
        let push = try #require(run.decision(for: "player-1", in: tick))

        #expect(push.priority == .low)
        #expect(push.demoted)
        #expect(push.reason.hasPrefix("heroKnockedDown: your hero is down: use a potion"))
        #expect(push.reason.contains("demoted to 5"))
        #expect(push.reason.contains("frequent updates off"))
        #expect(push.payload.timestamp.seconds == Self.startedAt + 560)
        #expect(push.expiration == Self.startedAt + 560 + 30)
        #expect(push.payload.alert?.sound == "HeroDown.caf")
        #expect(push.payload.alert?.title == .localized(key: "alert.heroKnockedDown.title", args: ["Power Panda"]))

        try compare(push, toGolden: "update-demoted")
        // Demotion changes the priority header only: the body is the one a
        // high-priority push would have carried.
        let highRun = try Self.keep(frequentUpdates: false)
        let highTick = try #require(highRun.tick { $0 == .heroKnockedDown(hero: "power-panda", boss: "ghost-queen") })
        let high = try #require(highRun.decision(for: "player-1", in: highTick))
        #expect(high.priority == .high)
        #expect(try PayloadEncoder().encode(push.payload) == PayloadEncoder().encode(high.payload))
    }

    @Test func endCarriesDismissalDateAndFinalState() throws {
        let run = try Self.woods()
        let last = try #require(run.ticks.last)
        #expect(last.state.tick == 112)
        #expect(last.state.status == .victory)
        let push = try #require(run.decision(for: "player-1", in: last))

        #expect(push.priority == .high)
        #expect(push.reason == "victory: the party won: everyone celebrates")
        #expect(!push.demoted)
        #expect(push.payload.isEnd)
        #expect(push.payload.timestamp.seconds == Self.startedAt + 1120)
        // Default dismissal delay: 15 minutes.
        #expect(push.payload.dismissalDate?.seconds == Self.startedAt + 1120 + 900)
        // An end is worth delivering for the 4 hours the Lock Screen may keep the activity.
        #expect(push.expiration == Self.startedAt + 1120 + 4 * 3600)
        #expect(push.payload.alert == Alert(
            title: .localized(key: "alert.victory.title"),
            body: .localized(key: "alert.victory.body", args: ["Old Treant"]),
            sound: "Victory.caf"))
        #expect(push.payload.relevanceScore == 0)
        let state = push.payload.contentState
        #expect(state.boss == BossStatus(id: "old-treant", healthLevel: 0, isEnraged: state.boss.isEnraged, position: 2))
        for hero in run.finalState.heroes {
            let shown = try #require(state.heroes.first { $0.id == hero.hero.rawValue })
            #expect(PolicyFixtures.isClose(shown.healthLevel, PolicyFixtures.level(hero.health, hero.maxHealth)))
        }

        try compare(push, toGolden: "end-victory")
    }

    @Test func pushToStartCarriesAttributesAlertAndTokenRequest() throws {
        let adventure = try PolicyFixtures.adventure()
        let policy = PolicyFixtures.policy(adventure)
        let pushes = try policy.pushesForStart(
            state: adventure.start(), recipients: [PushToStartRecipient(player: "player-2", hero: "egghead")])
        #expect(pushes.count == 1)
        let push = try #require(pushes.first)

        #expect(push.target == .pushToStart(player: "player-2"))
        #expect(push.priority == .high)
        #expect(push.reason == "adventure started: push-to-start needs an alert")
        // Worth delivering until the adventure's time limit (8 h).
        #expect(push.expiration == Self.startedAt + 8 * 3600)
        #expect(push.payload.timestamp.seconds == Self.startedAt)
        #expect(push.payload.attributes == AdventureAttributes(
            adventureID: "adv-42", heroID: "egghead", routeName: "Whispering Woods",
            party: [
                HeroSummary(id: "power-panda", name: "Power Panda", avatar: "🐼"),
                HeroSummary(id: "egghead", name: "Egghead", avatar: "🦄"),
                HeroSummary(id: "spouty", name: "Spouty", avatar: "🐳"),
            ],
            bosses: [
                BossSummary(id: "thorn-wolf", name: "Thorn Wolf", avatar: "🐺"),
                BossSummary(id: "goblin-chief", name: "Goblin Chief", avatar: "👺"),
                BossSummary(id: "old-treant", name: "Old Treant", avatar: "🌳"),
            ],
            endsAt: Date(timeIntervalSince1970: TimeInterval(Self.startedAt + 8 * 3600))))
        #expect(push.payload.alert == Alert(
            title: .localized(key: "alert.adventureStarted.title"),
            body: .localized(key: "alert.adventureStarted.body", args: ["Egghead", "Thorn Wolf"]),
            sound: "AdventureStart.caf"))
        #expect(push.payload.contentState.currentHealthLevel == 1)
        #expect(push.payload.contentState.potions == 3)
        #expect(push.payload.contentState.boss == BossStatus(id: "thorn-wolf", healthLevel: 1, isEnraged: false, position: 0))

        let body = try compare(push, toGolden: "push-to-start")
        let text = String(decoding: body, as: UTF8.self)
        #expect(text.contains(#""attributes-type":"AdventureAttributes""#))
        #expect(text.contains(#""input-push-token":1"#))
        #expect(text.contains(#""event":"start""#))
        // endsAt is a Swift Date: seconds since 2001, not since 1970.
        #expect(text.contains("\"endsAt\":\(Self.startedAt + 8 * 3600 - PolicyFixtures.secondsFrom1970To2001)"))
    }

    /// Compares the body with the golden file and checks the golden file is a
    /// payload the simulator accepts back unchanged. Returns the body.
    @discardableResult
    func compare(_ push: PushDecision, toGolden name: String) throws -> Data {
        let body = try PayloadEncoder().encode(push.payload)
        #expect(body.count <= LiveActivityPayload.sizeLimit)
        let file = Self.golden.appendingPathComponent("\(name).json")
        if ProcessInfo.processInfo.environment["RANGERS_UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(at: Self.golden, withIntermediateDirectories: true)
            try body.write(to: file, options: .atomic)
        }
        let expected = try Data(contentsOf: file)
        let firstDifference = zip(body, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(body.count, expected.count)
        #expect(body == expected,
                "\(name).json differs from byte \(firstDifference): got \(String(decoding: body, as: UTF8.self))")
        #expect(try JSONDecoder().decode(LiveActivityPayload.self, from: expected) == push.payload)
        return body
    }
}
