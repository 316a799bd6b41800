import Game
import PushPolicy
import Testing
import Vocabulary
import Wire

/// The budget ledger and the routine spacing, tick by tick with hand-made events.
@Suite struct BudgetAndSpacingTests {
    /// Drives one policy through hand-chosen ticks, carrying the ledgers.
    struct Driver {
        let policy: PushPolicy
        let recipients: [LiveActivityRecipient]
        var ledgers: [ActivityID: BudgetLedger] = [:]
        var start: AdventureState

        init(configuration: PushPolicyConfiguration, tickInterval: Int, frequentUpdates: Bool) throws {
            let adventure = try PolicyFixtures.adventure(tickInterval: tickInterval)
            policy = PolicyFixtures.policy(adventure, configuration: configuration)
            recipients = PolicyFixtures.recipients(PolicyFixtures.trio, frequentUpdates: frequentUpdates)
            start = adventure.start()
        }

        /// The pushes of tick `tick`, by activity id.
        mutating func tick(_ tick: Int, _ events: [GameEvent], change: (inout AdventureState) -> Void = { _ in })
            throws -> [ActivityID: PushDecision]
        {
            var state = start
            state.tick = tick
            change(&state)
            let decisions = try policy.pushes(after: events, state: state, recipients: recipients, ledgers: &ledgers)
            return Dictionary(uniqueKeysWithValues: decisions.map {
                guard case .liveActivity(let id) = $0.target else { fatalError("not an activity push") }
                return (id, $0)
            })
        }
    }

    static let pandaDown: [GameEvent] = [.heroKnockedDown(hero: "power-panda", boss: "thorn-wolf")]
    static func knockOutPanda(_ state: inout AdventureState) { state.heroes[0].health = 0 }

    /// Two an hour without frequent updates; a tick every 10 s. The hour is
    /// (now − 3600, now]: a push exactly 3600 s old no longer counts.
    @Test func budgetIsASlidingHourPerActivity() throws {
        let configuration = PushPolicyConfiguration(highPriorityPerHourWithFrequentUpdates: 5, highPriorityPerHour: 2)
        var driver = try Driver(configuration: configuration, tickInterval: 10, frequentUpdates: false)
        func pandaPriority(at tick: Int) throws -> (Priority, Bool) {
            let push = try #require(try driver.tick(tick, Self.pandaDown, change: Self.knockOutPanda)["activity-player-1"])
            #expect(push.payload.alert?.sound == "HeroDown.caf", "tick \(tick): a demoted push keeps its alert")
            return (push.priority, push.demoted)
        }
        #expect(try pandaPriority(at: 1) == (.high, false))   // 10 s
        #expect(try pandaPriority(at: 2) == (.high, false))   // 20 s
        #expect(try pandaPriority(at: 3) == (.low, true))     // 30 s: 2 in the hour
        #expect(try pandaPriority(at: 360) == (.low, true))   // 3600 s: 10 and 20 still count
        #expect(try pandaPriority(at: 361) == (.high, false)) // 3610 s: 10 has left the hour
        #expect(try pandaPriority(at: 362) == (.high, false)) // 3620 s: 20 has left too
        #expect(try pandaPriority(at: 363) == (.low, true))   // 3630 s: 3610 and 3620 count
    }

    @Test func oneActivitysBudgetIsNotAnothers() throws {
        let configuration = PushPolicyConfiguration(highPriorityPerHourWithFrequentUpdates: 2, highPriorityPerHour: 2)
        var driver = try Driver(configuration: configuration, tickInterval: 10, frequentUpdates: true)
        for tick in 1...2 {
            #expect(try driver.tick(tick, Self.pandaDown, change: Self.knockOutPanda)["activity-player-1"]?.priority == .high)
        }
        let bossDown: [GameEvent] = [.bossDefeated(boss: "goblin-chief", hero: "spouty", rank: .main),
                                     .nextBossAppears(boss: "old-treant")]
        let pushes = try driver.tick(3, bossDown)
        #expect(pushes["activity-player-1"]?.priority == .low)
        #expect(pushes["activity-player-1"]?.demoted == true)
        #expect(pushes["activity-player-1"]?.reason.contains("demoted to 5") == true)
        #expect(pushes["activity-player-1"]?.payload.alert?.sound == "BossDefeated.caf")
        #expect(pushes["activity-player-2"]?.priority == .high)
        #expect(pushes["activity-player-3"]?.priority == .high)
    }

    @Test func frequentUpdatesGetTheLargerBudget() throws {
        let configuration = PushPolicyConfiguration(highPriorityPerHourWithFrequentUpdates: 4, highPriorityPerHour: 1)
        for frequent in [false, true] {
            var driver = try Driver(configuration: configuration, tickInterval: 10, frequentUpdates: frequent)
            var high = 0
            for tick in 1...6 {
                let push = try #require(try driver.tick(tick, Self.pandaDown, change: Self.knockOutPanda)["activity-player-1"])
                if push.priority == .high { high += 1 }
                if push.demoted {
                    #expect(push.reason.contains("frequent updates \(frequent ? "on" : "off")"), "\(push.reason)")
                }
            }
            #expect(high == (frequent ? 4 : 1))
        }
    }

    /// Spacing 5 s without frequent updates, a tick every second.
    @Test func routineNewsWaitsForTheSpacingButAlertsAndTheEndDoNot() throws {
        let configuration = PushPolicyConfiguration(routineSpacingWithFrequentUpdates: 1, routineSpacing: 5)
        var driver = try Driver(configuration: configuration, tickInterval: 1, frequentUpdates: false)
        let hit: [GameEvent] = [.damageDealt(hero: "spouty", boss: "thorn-wolf", amount: 10, blocked: 0)]
        func bossAt(_ tick: Int) -> (inout AdventureState) -> Void { { $0.boss.health = 700 - 10 * tick } }
        var sentAt: [Int] = []
        for tick in 1...6 {
            if let push = try driver.tick(tick, hit, change: bossAt(tick))["activity-player-1"] {
                sentAt.append(tick)
                // The push carries this tick's state, including what the held-back ticks changed.
                #expect(PolicyFixtures.isClose(push.payload.contentState.boss.healthLevel, Double(700 - 10 * tick) / 700))
            }
        }
        #expect(sentAt == [1, 6])
        #expect(driver.ledgers["activity-player-1"]?.lastPushAt == driver.policy.time(ofTick: 6))

        // Tick 7: Power Panda is down: the owner hears it at once.
        let down = try driver.tick(7, Self.pandaDown, change: Self.knockOutPanda)
        #expect(down["activity-player-1"]?.priority == .high)
        // Teammates' routine news waits (their last push was at 6).
        #expect(down["activity-player-2"] == nil)

        // Tick 8: routine again, 1 s after the alert: held.
        #expect(try driver.tick(8, hit)["activity-player-1"] == nil)

        // Tick 9: the party wins: every activity ends now, spacing or not.
        let end = try driver.tick(9, [.victory(boss: "thorn-wolf")]) { $0.status = .victory }
        #expect(end.count == 3)
        #expect(end.values.allSatisfy { $0.payload.isEnd && $0.payload.timestamp.seconds == PolicyFixtures.startedAt + 9 })
    }

    /// With no budget left, an alert goes out at priority 5, and the end of a
    /// game-master-ended adventure (no alert) too: neither is routine news, so
    /// the spacing must not hold them back.
    @Test func demotedAlertsAndTheEndAreNeverHeldBack() throws {
        let configuration = PushPolicyConfiguration(
            highPriorityPerHourWithFrequentUpdates: 0, highPriorityPerHour: 0,
            routineSpacingWithFrequentUpdates: 5, routineSpacing: 5)
        var driver = try Driver(configuration: configuration, tickInterval: 1, frequentUpdates: false)
        let hit: [GameEvent] = [.damageDealt(hero: "spouty", boss: "thorn-wolf", amount: 10, blocked: 0)]
        #expect(try driver.tick(1, hit)["activity-player-1"] != nil)

        let down = try #require(try driver.tick(2, Self.pandaDown, change: Self.knockOutPanda)["activity-player-1"])
        #expect(down.priority == .low && down.demoted)
        #expect(down.payload.alert?.sound == "HeroDown.caf")

        let end = try driver.tick(3, [.adventureEndedByGameMaster(boss: "thorn-wolf")]) { $0.status = .endedByGameMaster }
        #expect(end.count == 3)
        for push in end.values {
            #expect(push.payload.isEnd)
            #expect(push.priority == .low && push.demoted)
            #expect(push.payload.timestamp.seconds == PolicyFixtures.startedAt + 3)
        }
    }

    @Test func withFrequentUpdatesRoutineNewsGoesOutEveryTick() throws {
        let configuration = PushPolicyConfiguration(routineSpacingWithFrequentUpdates: 1, routineSpacing: 5)
        var driver = try Driver(configuration: configuration, tickInterval: 1, frequentUpdates: true)
        let hit: [GameEvent] = [.damageDealt(hero: "spouty", boss: "thorn-wolf", amount: 10, blocked: 0)]
        for tick in 1...6 {
            #expect(try driver.tick(tick, hit)["activity-player-1"] != nil, "tick \(tick)")
        }
    }
}

@Suite struct PushPolicyConfigurationTests {
    @Test func defaultsAreUsable() {
        #expect(PushPolicyConfiguration.standard.problems.isEmpty)
        // More room with frequent updates than without, as the app's opt-in promises.
        #expect(PushPolicyConfiguration.standard.highPriorityPerHourWithFrequentUpdates
            > PushPolicyConfiguration.standard.highPriorityPerHour)
    }

    @Test(arguments: [
        PushPolicyConfiguration(highPriorityPerHour: -1),
        PushPolicyConfiguration(highPriorityPerHourWithFrequentUpdates: 2, highPriorityPerHour: 3),
        PushPolicyConfiguration(routineSpacingWithFrequentUpdates: 0),
        PushPolicyConfiguration(routineSpacing: 0),
        PushPolicyConfiguration(staleAfterMissedUpdates: 0),
        PushPolicyConfiguration(minimumStaleSeconds: 0),
        PushPolicyConfiguration(dismissalDelay: -1),
        PushPolicyConfiguration(dismissalDelay: 4 * 3600 + 1),
    ])
    func unusableValuesAreReported(configuration: PushPolicyConfiguration) {
        #expect(configuration.problems.count == 1, "\(configuration.problems)")
    }
}
