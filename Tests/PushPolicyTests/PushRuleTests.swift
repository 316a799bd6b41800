import Foundation
import Game
import PushPolicy
import Vocabulary
import Testing
import Wire

/// Every variant the rules must cover: the game's own list of event variants,
/// plus the minion variant of `bossDefeated`, which that list leaves out.
enum Variants {
    /// Both ranks. The switch fails to compile when a rank is added, so the list can't go stale.
    static let bossRanks: [BossRank] = {
        let ranks: [BossRank] = [.main, .minion]
        for rank in ranks {
            switch rank {
            case .main, .minion: break
            }
        }
        return ranks
    }()

    static let events: [GameEvent] = {
        var events = GameEvent.everyVariant
        for rank in bossRanks where !events.contains(.bossDefeated(boss: "boss", hero: "hero", rank: rank)) {
            events.append(.bossDefeated(boss: "boss", hero: "hero", rank: rank))
        }
        return events
    }()

    /// The activity of the hero the variants name (`hero`), and of someone else.
    static let owner: HeroID = "hero"
    static let teammate: HeroID = "someone-else"
}

@Suite struct PushRuleTableTests {
    @Test func variantListCoversEveryKindRarityAndRank() {
        #expect(Set(Variants.events.map(\.kind)) == Set(GameEvent.Kind.allCases))
        for rarity in LootRarity.allCases {
            #expect(Variants.events.contains(.lootFound(hero: "hero", rarity: rarity)))
        }
        for rank in Variants.bossRanks {
            #expect(Variants.events.contains { if case .bossDefeated(_, _, rank) = $0 { true } else { false } })
        }
    }

    @Test(arguments: Variants.events)
    func everyEventHasARuleForOwnerAndOthers(event: GameEvent) {
        for hero in [Variants.owner, Variants.teammate] {
            #expect(PushRule.table.contains { $0.applies(to: event, hero: hero) },
                    "no rule decides \(event) for \(hero == Variants.owner ? "its owner" : "the others")")
        }
    }

    /// A rule that never comes first for any event is dead weight in the table
    /// docs/push-policy.md prints (and probably a misordering).
    @Test func everyRuleDecidesSomeEvent() {
        var deciding = Set<Int>()
        for event in Variants.events {
            for hero in [Variants.owner, Variants.teammate] {
                if let index = PushRule.table.firstIndex(where: { $0.applies(to: event, hero: hero) }) {
                    deciding.insert(index)
                }
            }
        }
        for (index, rule) in PushRule.table.enumerated() {
            #expect(deciding.contains(index), "rule \(index) (\(rule.pattern), \(rule.why)) is shadowed")
        }
    }

    /// Alerts only where the player should act or celebrate; everything else is routine.
    @Test func onlyUrgentEventsAreHighPriority() {
        func first(_ event: GameEvent, _ hero: HeroID) -> PushRule? {
            PushRule.table.first { $0.applies(to: event, hero: hero) }
        }
        let high: Set<String> = ["heroKnockedDown-owner", "bossDefeated(main)", "victory", "partyWiped",
                                 "timeLimitReached", "adventureEndedByGameMaster"]
        for event in Variants.events {
            for hero in [Variants.owner, Variants.teammate] {
                guard let rule = first(event, hero) else { continue }
                var name = event.kind.rawValue
                if event.kind == .heroKnockedDown { name += hero == Variants.owner ? "-owner" : "-others" }
                if case .bossDefeated(_, _, let rank) = event { name += "(\(rank.rawValue))" }
                #expect((rule.priority == .high) == high.contains(name), "\(name) for \(hero): \(rule.priority)")
                if rule.priority == .low {
                    #expect(rule.alert == nil, "\(name): a routine push must not alert")
                }
            }
        }
    }

    @Test func everyRuleExplainsItself() {
        for rule in PushRule.table {
            #expect(!rule.why.trimmingCharacters(in: .whitespaces).isEmpty, "\(rule.pattern) has no reason")
        }
    }
}

/// The rules as the policy applies them to one tick.
@Suite struct PushRuleDecisionTests {
    let adventure: Adventure
    let policy: PushPolicy
    let recipients = PolicyFixtures.recipients(PolicyFixtures.trio)

    init() throws {
        adventure = try PolicyFixtures.adventure()
        policy = PolicyFixtures.policy(adventure)
    }

    /// Tick 5 of the Whispering Woods adventure, with healths set by hand.
    func state(tick: Int = 5, health: [HeroID: Int] = [:], bossHealth: Int? = nil) -> AdventureState {
        var state = adventure.start()
        state.tick = tick
        for index in state.heroes.indices {
            if let value = health[state.heroes[index].hero] { state.heroes[index].health = value }
        }
        if let bossHealth { state.boss.health = bossHealth }
        return state
    }

    func decide(_ events: [GameEvent], _ state: AdventureState, recipients: [LiveActivityRecipient]? = nil) throws
        -> [ActivityID: PushDecision]
    {
        var ledgers: [ActivityID: BudgetLedger] = [:]
        let decisions = try policy.pushes(after: events, state: state, recipients: recipients ?? self.recipients,
                                          ledgers: &ledgers)
        var byActivity: [ActivityID: PushDecision] = [:]
        for decision in decisions {
            guard case .liveActivity(let id) = decision.target else {
                Issue.record("an update went to \(decision.target)")
                continue
            }
            #expect(byActivity[id] == nil, "two pushes for \(id) in one tick")
            byActivity[id] = decision
        }
        return byActivity
    }

    @Test func ownerOfKnockedDownHeroIsAlertedTeammatesAreNot() throws {
        let events: [GameEvent] = [
            .damageTaken(hero: "egghead", boss: "thorn-wolf", amount: 20),
            .heroKnockedDown(hero: "egghead", boss: "thorn-wolf"),
        ]
        let pushes = try decide(events, state(health: ["egghead": 0]))
        #expect(pushes.count == 3)

        let owner = try #require(pushes["activity-player-2"])
        #expect(owner.priority == .high)
        #expect(owner.payload.alert?.sound == "HeroDown.caf")
        #expect(owner.payload.alert?.title == .localized(key: "alert.heroKnockedDown.title", args: ["Egghead"]))
        #expect(owner.payload.alert?.body == .localized(key: "alert.heroKnockedDown.body", args: ["Egghead"]))

        for teammate: ActivityID in ["activity-player-1", "activity-player-3"] {
            let push = try #require(pushes[teammate])
            #expect(push.priority == .low)
            #expect(push.payload.alert == nil)
            #expect(push.payload.contentState.latestEvent.key == "event.heroKnockedDown")
            #expect(push.payload.contentState.heroes[1].isKnockedDown)
        }
    }

    @Test func mainBossDefeatedAlertsEveryone() throws {
        let run = try PolicyRun(adventure)
        let tick = try #require(run.tick { $0 == .bossDefeated(boss: "goblin-chief", hero: "power-panda", rank: .main) })
        #expect(tick.state.tick == 41)
        #expect(tick.decisions.count == 3)
        for push in tick.decisions {
            #expect(push.priority == .high)
            #expect(push.payload.alert == Alert(
                title: .localized(key: "alert.bossDefeated.title", args: ["Goblin Chief"]),
                body: .localized(key: "alert.bossDefeated.body", args: ["Old Treant"]),
                sound: "BossDefeated.caf"))
            #expect(push.payload.contentState.boss.id == "old-treant")
            #expect(push.payload.contentState.boss.position == 2)
        }
    }

    @Test func minionDefeatedIsRoutine() throws {
        let run = try PolicyRun(adventure)
        let tick = try #require(run.tick { $0 == .bossDefeated(boss: "thorn-wolf", hero: "egghead", rank: .minion) })
        #expect(tick.state.tick == 11)
        #expect(tick.decisions.count == 3)
        for push in tick.decisions {
            #expect(push.priority == .low)
            #expect(push.payload.alert == nil)
        }
        // Also on its own, without the other events of that tick.
        var next = state()
        next.bossIndex = 1
        next.boss.boss = "goblin-chief"
        next.boss.rank = .main
        next.boss.maxHealth = 1500
        next.boss.health = 1500
        let pushes = try decide([.bossDefeated(boss: "thorn-wolf", hero: "egghead", rank: .minion),
                                 .nextBossAppears(boss: "goblin-chief")], next)
        #expect(pushes.count == 3)
        #expect(pushes.values.allSatisfy { $0.priority == .low && $0.payload.alert == nil })
    }

    @Test func victoryAlertsEveryone() throws {
        let run = try PolicyRun(adventure)
        let last = try #require(run.ticks.last)
        #expect(last.decisions.count == 3)
        for push in last.decisions {
            #expect(push.priority == .high)
            #expect(push.payload.isEnd)
            #expect(push.payload.alert?.sound == "Victory.caf")
            #expect(push.payload.alert?.title.key == "alert.victory.title")
        }
    }

    @Test func defeatAlertsEveryone() throws {
        let run = try PolicyRun(try PolicyFixtures.adventure(seed: 5, route: "haunted-keep"))
        let last = try #require(run.ticks.last)
        #expect(last.state.status == .defeat)
        #expect(last.decisions.count == 3)
        for push in last.decisions {
            #expect(push.priority == .high)
            #expect(push.payload.isEnd)
            #expect(push.payload.alert == Alert(
                title: .localized(key: "alert.defeat.title"),
                body: .localized(key: "alert.defeat.body", args: ["Ghost Queen"]),
                sound: "Defeat.caf"))
        }
    }

    @Test func timeLimitAlertsEveryoneAndEndsEveryActivity() throws {
        // 10 ticks of 10 s: Thorn Wolf falls only at tick 11.
        let run = try PolicyRun(try PolicyFixtures.adventure(timeLimit: 100))
        let last = try #require(run.ticks.last)
        #expect(last.state.status == .timeLimitReached)
        #expect(last.state.tick == 10)
        #expect(last.decisions.count == 3)
        for push in last.decisions {
            #expect(push.priority == .high)
            #expect(push.payload.isEnd)
            #expect(push.payload.alert == Alert(
                title: .localized(key: "alert.timeLimitReached.title"),
                body: .localized(key: "alert.timeLimitReached.body", args: ["Thorn Wolf"]),
                sound: "Defeat.caf"))
        }
    }

    @Test func gameMasterEndEndsEveryActivity() throws {
        let run = try PolicyRun(adventure, commands: [ScheduledCommand(tick: 7, command: .endAdventure)])
        let last = try #require(run.ticks.last)
        #expect(last.state.status == .endedByGameMaster)
        #expect(last.state.tick == 7)
        #expect(Set(last.decisions.map(\.target)) == Set(recipients.map { .liveActivity(id: $0.activityID) }))
        for push in last.decisions {
            #expect(push.payload.isEnd)
            #expect(push.payload.dismissalDate?.seconds == PolicyFixtures.startedAt + 70 + 900)
        }
    }

    /// Three events in one tick: one push per activity, with the priority and
    /// alert of the event that matters most to that activity.
    @Test(arguments: [false, true])
    func eventsOfATickAreCoalescedIntoOnePushPerActivity(reversed: Bool) throws {
        var events: [GameEvent] = [
            .damageDealt(hero: "power-panda", boss: "thorn-wolf", amount: 19, blocked: 0),
            .heroKnockedDown(hero: "egghead", boss: "thorn-wolf"),
            .potionUsed(player: "player-3", hero: "spouty", amount: 100),
        ]
        if reversed { events.reverse() }
        let state = state(health: ["egghead": 0, "spouty": 180])
        let pushes = try decide(events, state)
        #expect(pushes.count == 3)

        let owner = try #require(pushes["activity-player-2"])
        #expect(owner.priority == .high)
        #expect(owner.reason.hasPrefix("heroKnockedDown"))
        #expect(owner.payload.alert?.sound == "HeroDown.caf")
        #expect(owner.payload.contentState.latestEvent == EventText(key: "event.heroKnockedDown", args: ["Egghead"]))

        for id: ActivityID in ["activity-player-1", "activity-player-3"] {
            let push = try #require(pushes[id])
            #expect(push.priority == .low)
            #expect(push.payload.alert == nil)
            #expect(push.reason == "heroKnockedDown: a teammate is down")
            #expect(push.payload.contentState.latestEvent == EventText(key: "event.heroKnockedDown", args: ["Egghead"]))
        }
        // Every push carries the state after the whole tick.
        for push in pushes.values {
            let heroes = push.payload.contentState.heroes
            #expect(heroes.map(\.id) == ["power-panda", "egghead", "spouty"])
            #expect(heroes[1].isKnockedDown && heroes[1].healthLevel == 0)
            #expect(PolicyFixtures.isClose(heroes[2].healthLevel, 180.0 / 230))
        }
    }

    @Test func noEventsNoPush() throws {
        #expect(try decide([], state()).isEmpty)
    }

    @Test func relevanceIsHundredForOwnKnockedDownHero() throws {
        let pushes = try decide([.heroKnockedDown(hero: "spouty", boss: "thorn-wolf")], state(health: ["spouty": 0]))
        #expect(pushes["activity-player-3"]?.payload.relevanceScore == 100)
        #expect((pushes["activity-player-1"]?.payload.relevanceScore ?? 100) < 100)
    }

    @Test func relevanceRisesAsOwnHeroWeakens() throws {
        // Power Panda has 300; the boss stays at full health.
        var scores: [Double] = []
        for health in [300, 240, 150, 60, 15] {
            let pushes = try decide([.damageTaken(hero: "power-panda", boss: "thorn-wolf", amount: 1)],
                                    state(health: ["power-panda": health]))
            scores.append(try #require(pushes["activity-player-1"]?.payload.relevanceScore))
        }
        #expect(zip(scores, scores.dropFirst()).allSatisfy { $0 < $1 }, "\(scores)")
        #expect(scores.allSatisfy { (0...100).contains($0) })
        #expect(scores.last! < 100, "a standing hero scores below a knocked-down one")
    }

    @Test func relevanceRisesAsBossIsAboutToFall() throws {
        var scores: [Double] = []
        for health in [700, 350, 70, 7] {
            let pushes = try decide([.damageDealt(hero: "spouty", boss: "thorn-wolf", amount: 1, blocked: 0)],
                                    state(bossHealth: health))
            scores.append(try #require(pushes["activity-player-1"]?.payload.relevanceScore))
        }
        #expect(zip(scores, scores.dropFirst()).allSatisfy { $0 < $1 }, "\(scores)")
    }

    @Test func relevanceIsZeroAfterTheEnd() throws {
        var ended = state(bossHealth: 0)
        ended.status = .victory
        let pushes = try decide([.bossDefeated(boss: "thorn-wolf", hero: "spouty", rank: .minion),
                                 .victory(boss: "thorn-wolf")], ended)
        #expect(pushes.count == 3)
        for push in pushes.values {
            #expect(push.payload.isEnd)
            #expect(push.payload.relevanceScore == 0)
        }
    }
}
