import Catalog
import Foundation
import Game
import PushPolicy
import Testing
import Vocabulary
import Wire

/// Sixty adventures across every route, party sizes 1…6, both frequent-update
/// settings, every language and random potions (some for heroes not in the
/// party), a few cut short by the time limit or by the game master, each
/// played through the policy from push-to-start to the end.
struct AdventureCase: Sendable, CustomStringConvertible {
    static let count = 60
    static let languages = ["en", "vi", "ko", "zh-Hans"]

    var index: Int
    var setup: AdventureSetup
    var commands: [ScheduledCommand]
    var recipients: [LiveActivityRecipient]
    var pushToStart: [PushToStartRecipient]
    /// Two channels (languages and storage policies vary by case) and two followers
    /// per token (one with frequent updates), woken by push-to-start.
    var followers: Followers
    var followerStarts: [FollowerStartRecipient]

    var description: String {
        "case \(index): seed \(setup.seed), \(setup.route), \(setup.party.map(\.hero.rawValue)), tick \(setup.tickInterval) s"
    }

    /// `tickInterval`: every adventure uses it; nil: a mix of 1, 10 and 60 seconds.
    static func all(tickInterval: Int? = nil) -> [AdventureCase] {
        let content = PolicyFixtures.content
        return (0..<count).map { index in
            var random = SeededRandom(seed: 9_000 + UInt64(index))
            let route = content.routes[index % content.routes.count].id
            let size = 1 + (index / content.routes.count) % AdventureSetup.partySizes.upperBound
            var heroes = content.heroes.map(\.id)
            for i in heroes.indices.reversed() { heroes.swapAt(i, random.int(in: 0...i)) }
            let party = heroes.prefix(size).enumerated().map { PartyMember(player: PlayerID("player-\($0.offset + 1)"), hero: $0.element) }
            let interval = tickInterval ?? [1, 10, 60][random.int(below: 3)]
            let timeLimit = index % 10 == 3 ? interval * random.int(in: 10...40) : AdventureSetup.longestTimeLimit

            var commands: [ScheduledCommand] = (0..<random.int(in: 0...6)).map { _ in
                let player = party[random.int(below: party.count)].player
                // Any hero of the content: now and then one not in the party.
                let hero = content.heroes[random.int(below: content.heroes.count)].id
                return ScheduledCommand(tick: random.int(in: 1...120), command: .usePotion(player: player, hero: hero))
            }
            if index % 10 == 7 {
                commands.append(ScheduledCommand(tick: random.int(in: 15...60), command: .endAdventure))
            }
            let recipients = party.enumerated().map { slot, member in
                LiveActivityRecipient(
                    activityID: PolicyFixtures.activityID(member.player), player: member.player, hero: member.hero,
                    frequentUpdates: (index + slot) % 2 == 0, language: languages[(index + slot) % languages.count])
            }
            let pushToStart = party.enumerated().filter { $0.offset % 2 == 0 }.map {
                PushToStartRecipient(player: $0.element.player, hero: $0.element.hero,
                                     language: languages[($0.offset + index) % languages.count])
            }
            let channels = (0..<2).map { slot in
                FollowerChannelRecipient(channel: FollowerChannelID("channel-\(index)-\(slot)"),
                                         language: languages[(index + 2 * slot) % languages.count],
                                         storagePolicy: (index + slot) % 2 == 0 ? .mostRecentMessageStored : .noMessageStored)
            }
            let followerActivities = (0..<2).map { slot in
                FollowerActivityRecipient(activityID: ActivityID("follower-activity-\(slot)"), player: PlayerID("follower-\(slot)"),
                                          frequentUpdates: slot == 0, language: languages[(index + slot + 1) % languages.count])
            }
            return AdventureCase(
                index: index,
                setup: AdventureSetup(route: route, party: party, tickInterval: interval, timeLimit: timeLimit,
                                      seed: 1_000 + UInt64(index)),
                commands: commands, recipients: recipients, pushToStart: pushToStart,
                followers: Followers(channels: channels, activities: followerActivities),
                followerStarts: followerActivities.map { FollowerStartRecipient(player: $0.player, language: $0.language) })
        }
    }

    /// `withFollowers: false` plays the same adventure for the members alone.
    func run(_ configuration: PushPolicyConfiguration, withFollowers: Bool = true) throws -> PolicyRun {
        try PolicyRun(try Adventure(setup: setup, content: PolicyFixtures.content), configuration: configuration,
                      recipients: recipients, pushToStart: pushToStart, followers: withFollowers ? followers : .none,
                      followerStarts: withFollowers ? followerStarts : [], commands: commands)
    }
}

/// The configurations the properties are checked under.
enum Scenario: String, Sendable, CaseIterable, CustomTestStringConvertible {
    /// The shipped defaults.
    case standard
    /// A budget so small that adventures run into it: 3 an hour with frequent
    /// updates (a Gauntlet won within the hour needs 4), 2 without (any route won needs 3).
    case smallBudget
    /// Routine pushes at least 5 s apart (2 s with frequent updates), a tick every second.
    case spacing

    var configuration: PushPolicyConfiguration {
        switch self {
        case .standard: .standard
        case .smallBudget: PushPolicyConfiguration(highPriorityPerHourWithFrequentUpdates: 3, highPriorityPerHour: 2)
        case .spacing: PushPolicyConfiguration(routineSpacingWithFrequentUpdates: 2, routineSpacing: 5)
        }
    }

    var tickInterval: Int? { self == .spacing ? 1 : nil }

    var testDescription: String { rawValue }

    /// Every case played once per scenario and shared by the tests below.
    var runs: [(AdventureCase, PolicyRun)] {
        get throws {
            let result: Result<[(AdventureCase, PolicyRun)], any Error> = switch self {
            case .standard: Self.standardRuns
            case .smallBudget: Self.smallBudgetRuns
            case .spacing: Self.spacingRuns
            }
            return try result.get()
        }
    }

    private static func play(_ scenario: Scenario) -> Result<[(AdventureCase, PolicyRun)], any Error> {
        Result { try AdventureCase.all(tickInterval: scenario.tickInterval).map { ($0, try $0.run(scenario.configuration)) } }
    }

    private static let standardRuns = play(.standard)
    private static let smallBudgetRuns = play(.smallBudget)
    private static let spacingRuns = play(.spacing)
}

extension PushPolicyConfiguration {
    /// Worked out here rather than asked of the policy.
    func limit(for recipient: LiveActivityRecipient) -> Int {
        recipient.frequentUpdates ? highPriorityPerHourWithFrequentUpdates : highPriorityPerHour
    }

    func spacing(for recipient: LiveActivityRecipient) -> Int {
        recipient.frequentUpdates ? routineSpacingWithFrequentUpdates : routineSpacing
    }
}

extension PushDecision {
    /// Low priority, no alert, not the end: what the spacing may hold back.
    var isRoutine: Bool { priority == .low && payload.alert == nil && payload.isUpdate }
}

@Suite struct PushPolicyPropertyTests {
    static let hour = 3600

    @Test(arguments: Scenario.allCases)
    func timestampsStrictlyIncreasePerActivity(scenario: Scenario) throws {
        for (adventureCase, run) in try scenario.runs {
            let interval = adventureCase.setup.tickInterval
            for recipient in run.recipients {
                let sent = run.sent(to: recipient)
                if adventureCase.pushToStart.contains(where: { $0.player == recipient.player }) {
                    let start = try #require(sent.first, "\(adventureCase)")
                    #expect(start.decision.payload.isStart)
                    #expect(start.decision.payload.timestamp.seconds == PolicyFixtures.startedAt)
                }
                for item in sent {
                    #expect(item.decision.payload.timestamp.seconds == PolicyFixtures.startedAt + item.tick * interval,
                            "\(adventureCase), \(recipient.activityID), tick \(item.tick)")
                }
                for (earlier, later) in zip(sent, sent.dropFirst()) {
                    #expect(earlier.decision.payload.timestamp < later.decision.payload.timestamp,
                            "\(adventureCase), \(recipient.activityID): tick \(earlier.tick) then \(later.tick)")
                }
            }
        }
    }

    @Test(arguments: Scenario.allCases)
    func everyBodyFitsTheSizeLimit(scenario: Scenario) throws {
        var largest = 0
        for (adventureCase, run) in try scenario.runs {
            for decision in run.allDecisions {
                let body = try PayloadEncoder().encode(decision.payload)
                largest = max(largest, body.count)
                #expect(body.count <= 4096, "\(adventureCase): \(body.count) bytes")
            }
        }
        #expect(largest > 0)
    }

    @Test(arguments: Scenario.allCases)
    func everyUpdateGoesStaleAfterItsTimestampAndNotBeforeTheNextCanArrive(scenario: Scenario) throws {
        for (adventureCase, run) in try scenario.runs {
            let interval = adventureCase.setup.tickInterval
            for recipient in run.recipients {
                let nextExpected = max(interval, scenario.configuration.spacing(for: recipient))
                for item in run.sent(to: recipient) where !item.decision.payload.isEnd {
                    let payload = item.decision.payload
                    let timestamp = payload.timestamp.seconds
                    let stale = try #require(payload.staleDate, "\(adventureCase), tick \(item.tick): no stale date").seconds
                    #expect(stale > timestamp)
                    #expect(stale - timestamp >= nextExpected,
                            "\(adventureCase), tick \(item.tick): stale after \(stale - timestamp) s, next push due in \(nextExpected) s")
                    #expect(item.decision.expiration > timestamp)
                }
            }
        }
    }

    @Test(arguments: Scenario.allCases)
    func everyActivityEndsWithTheFinalState(scenario: Scenario) throws {
        let delay = scenario.configuration.dismissalDelay
        var reasons = Set<AdventureStatus>()
        for (adventureCase, run) in try scenario.runs {
            let final = run.finalState
            #expect(!final.isRunning)
            reasons.insert(final.status)
            let finalTime = PolicyFixtures.startedAt + final.tick * adventureCase.setup.tickInterval
            for recipient in run.recipients {
                let sent = run.sent(to: recipient)
                let last = try #require(sent.last, "\(adventureCase), \(recipient.activityID): no push")
                let payload = last.decision.payload
                #expect(payload.isEnd, "\(adventureCase), \(recipient.activityID): last push is \(payload.event.name)")
                #expect(sent.filter { $0.decision.payload.isEnd }.count == 1)
                #expect(payload.timestamp.seconds == finalTime)
                #expect(payload.dismissalDate?.seconds == finalTime + delay)
                #expect(payload.staleDate == nil || payload.staleDate!.seconds > finalTime)
                #expect(last.decision.expiration >= finalTime + delay)
                #expect(payload.relevanceScore == 0)
                // The final state: every hero's health and the boss as the adventure ended.
                let state = payload.contentState
                #expect(state.heroes.map(\.id) == final.heroes.map(\.hero.rawValue))
                for (shown, hero) in zip(state.heroes, final.heroes) {
                    #expect(PolicyFixtures.isClose(shown.healthLevel, PolicyFixtures.level(hero.health, hero.maxHealth)),
                            "\(adventureCase), \(hero.hero): \(shown.healthLevel) ≠ \(hero.health)/\(hero.maxHealth)")
                    #expect(shown.isKnockedDown == (hero.health == 0))
                }
                #expect(state.boss.id == final.boss.boss.rawValue)
                #expect(state.boss.position == final.bossIndex)
                #expect(PolicyFixtures.isClose(state.boss.healthLevel, PolicyFixtures.level(final.boss.health, final.boss.maxHealth)))
                #expect(state.potions == final.potions)
            }
        }
        if scenario == .standard {
            // The cases end in every way an adventure can end.
            #expect(reasons == [.victory, .defeat, .timeLimitReached, .endedByGameMaster])
        }
    }

    /// Each push shows the adventure as it is at its tick: held-back news is
    /// never shown late, since every push carries the newest state.
    @Test(arguments: Scenario.allCases)
    func everyPushCarriesTheNewestStateOfItsTick(scenario: Scenario) throws {
        for (adventureCase, run) in try scenario.runs {
            for recipient in run.recipients {
                for item in run.sent(to: recipient) {
                    let shown = item.decision.payload.contentState
                    let state = item.state
                    let context = "\(adventureCase), \(recipient.activityID), tick \(item.tick)"
                    #expect(shown.heroes.map(\.id) == state.heroes.map(\.hero.rawValue), "\(context)")
                    for (status, hero) in zip(shown.heroes, state.heroes) {
                        #expect(PolicyFixtures.isClose(status.healthLevel, PolicyFixtures.level(hero.health, hero.maxHealth)), "\(context)")
                        #expect(status.isKnockedDown == (hero.health == 0), "\(context)")
                    }
                    let own = try #require(state.hero(recipient.hero))
                    #expect(PolicyFixtures.isClose(shown.currentHealthLevel, PolicyFixtures.level(own.health, own.maxHealth)), "\(context)")
                    #expect(shown.boss.id == state.boss.boss.rawValue, "\(context)")
                    #expect(shown.boss.position == state.bossIndex, "\(context)")
                    #expect(shown.boss.isEnraged == state.boss.enraged, "\(context)")
                    #expect(PolicyFixtures.isClose(shown.boss.healthLevel, PolicyFixtures.level(state.boss.health, state.boss.maxHealth)), "\(context)")
                    #expect(shown.potions == state.potions, "\(context)")
                    #expect((0...100).contains(item.decision.payload.relevanceScore ?? -1), "\(context)")

                    // The widget's localizable event and its fallback text.
                    let template = try #require(PolicyFixtures.strings.text(shown.latestEvent.key, language: "en"),
                                                "\(context): \(shown.latestEvent.key) is not in the catalog")
                    #expect(try Placeholder.positions(in: template).count == shown.latestEvent.args.count, "\(context)")
                    #expect(!shown.eventDescription.isEmpty)
                    #expect(!shown.eventDescription.contains("%@") && !shown.eventDescription.contains("$@"), "\(context)")
                    #expect(shown.eventDescription != shown.latestEvent.key, "\(context): untranslated")
                }
            }
        }
    }

    /// In every sliding hour, an activity gets at most its limit of priority-10
    /// pushes; a push is demoted only when the limit is reached, keeps its
    /// alert, and says why.
    @Test(arguments: Scenario.allCases)
    func highPriorityPushesStayWithinTheHourlyBudget(scenario: Scenario) throws {
        let configuration = scenario.configuration
        var demotions: [Bool: Int] = [:]
        var limitReached: [Bool: Int] = [:]
        for (adventureCase, run) in try scenario.runs {
            for recipient in run.recipients {
                let limit = configuration.limit(for: recipient)
                // Updates and end of the activity; push-to-start goes to another token.
                let sent = run.sent(to: recipient).filter { !$0.decision.payload.isStart }
                let highTimes = sent.filter { $0.decision.priority == .high }.map(\.decision.payload.timestamp.seconds)
                for item in sent {
                    let decision = item.decision
                    let now = decision.payload.timestamp.seconds
                    let before = highTimes.count { $0 > now - Self.hour && $0 < now }
                    let context = "\(adventureCase), \(recipient.activityID), tick \(item.tick)"
                    if decision.priority == .high {
                        #expect(!decision.demoted, "\(context)")
                        #expect(before + 1 <= limit, "\(context): \(before + 1) high-priority pushes within an hour, limit \(limit)")
                        if before + 1 == limit { limitReached[recipient.frequentUpdates, default: 0] += 1 }
                    }
                    if decision.demoted {
                        demotions[recipient.frequentUpdates, default: 0] += 1
                        #expect(decision.priority == .low, "\(context)")
                        #expect(decision.reason.contains("demoted"), "\(context): \(decision.reason)")
                        #expect(before == limit, "\(context): demoted with \(before) of \(limit) used")
                        if !decision.reason.hasPrefix(GameEvent.Kind.adventureEndedByGameMaster.rawValue) {
                            #expect(decision.payload.alert != nil, "\(context): a demoted push keeps its alert")
                        }
                    } else {
                        #expect(!decision.reason.contains("demoted"), "\(context): \(decision.reason)")
                    }
                }
            }
        }
        switch scenario {
        case .smallBudget:
            // The limits were really reached, with frequent updates on and off …
            #expect(demotions[true, default: 0] > 0 && demotions[false, default: 0] > 0, "\(demotions)")
            #expect(limitReached[true, default: 0] > 0 && limitReached[false, default: 0] > 0, "\(limitReached)")
        case .standard:
            // The defaults leave room for everything an adventure here needs.
            #expect(demotions.values.reduce(0, +) == 0, "\(demotions)")
        case .spacing:
            break
        }
    }

    /// Alerts name only keys and sounds the catalog check knows about.
    @Test(arguments: Scenario.allCases)
    func alertsUseOnlyTheEmittedKeysAndSounds(scenario: Scenario) throws {
        let texts = Dictionary(PushPolicy.emittedTexts.map { ($0.key, $0.arguments) }, uniquingKeysWith: { $1 })
        let sounds = Set(PushPolicy.emittedSounds)
        var seenKeys = Set<String>()
        for (adventureCase, run) in try scenario.runs {
            for decision in run.allDecisions {
                guard let alert = decision.payload.alert else {
                    #expect(!decision.payload.isStart, "\(adventureCase): push-to-start without an alert")
                    continue
                }
                for text in [alert.title, alert.body] {
                    guard case .localized(let key, let args) = text else {
                        Issue.record("\(adventureCase): an alert with English-only text \(text)")
                        continue
                    }
                    seenKeys.insert(key)
                    let count = try #require(texts[key], "\(adventureCase): \(key) is not among the emitted texts")
                    #expect(args.count == count, "\(adventureCase): \(key) with \(args.count) arguments")
                    #expect(args.allSatisfy { !$0.isEmpty })
                }
                let sound = try #require(alert.sound, "\(adventureCase): an alert without its sound")
                #expect(sounds.contains(sound), "\(adventureCase): \(sound) is not among the emitted sounds")
                #expect(PolicyFixtures.loaded.sounds[sound] != nil, "\(sound) is not in Content/Sounds")
            }
        }
        if scenario == .standard {
            // Every alert the policy has shows up somewhere in these adventures.
            #expect(seenKeys == Set(texts.keys), "never seen: \(Set(texts.keys).subtracting(seenKeys).sorted())")
        }
    }

    /// With a tick every second, routine pushes to one activity come no closer
    /// than the spacing, yet never wait longer than it: a held-back update is
    /// folded into the next push, not lost.
    @Test func routineSpacingHoldsBackWithoutLosingAnything() throws {
        let configuration = Scenario.spacing.configuration
        var heldBack = 0
        for (adventureCase, run) in try Scenario.spacing.runs {
            #expect(adventureCase.setup.tickInterval == 1)
            // Something happens at every tick, so there is always news to carry.
            #expect(run.ticks.allSatisfy { !$0.events.isEmpty }, "\(adventureCase)")
            for recipient in run.recipients {
                let spacing = configuration.spacing(for: recipient)
                let sent = run.sent(to: recipient).filter { !$0.decision.payload.isStart }
                let context = "\(adventureCase), \(recipient.activityID)"
                heldBack += run.ticks.count - sent.count
                let routine = sent.filter { $0.decision.isRoutine }
                for (earlier, later) in zip(routine, routine.dropFirst()) {
                    #expect(later.tick - earlier.tick >= spacing,
                            "\(context): routine pushes at ticks \(earlier.tick) and \(later.tick), spacing \(spacing)")
                }
                // Nothing waits longer than the spacing, and the first tick is sent at once.
                #expect(sent.first?.tick == 1, "\(context)")
                for (earlier, later) in zip(sent, sent.dropFirst()) {
                    #expect(later.tick - earlier.tick <= spacing,
                            "\(context): nothing sent between ticks \(earlier.tick) and \(later.tick)")
                }
                #expect(sent.last?.tick == run.finalState.tick, "\(context): the end did not arrive")
            }
        }
        #expect(heldBack > 0, "the spacing never held anything back")
    }

    /// What the phone decodes, with a plain `JSONDecoder`, is what the policy meant.
    @Test(arguments: Scenario.allCases)
    func everyContentStateDecodesWithAPlainDecoder(scenario: Scenario) throws {
        var decoded = 0
        for (adventureCase, run) in try scenario.runs {
            for decision in run.allDecisions {
                let body = try PayloadEncoder().encode(decision.payload)
                let phone = try PhoneView.decode(body)
                #expect(phone.aps.contentState == decision.payload.contentState, "\(adventureCase)")
                #expect(phone.aps.attributes == decision.payload.attributes, "\(adventureCase)")
                if let attributes = phone.aps.attributes {
                    let endsAt = PolicyFixtures.startedAt + adventureCase.setup.timeLimit
                    #expect(attributes.endsAt == Date(timeIntervalSince1970: TimeInterval(endsAt)))
                    #expect(attributes.heroID == decision.hero?.rawValue ?? "")
                    #expect(attributes.party.map(\.id) == adventureCase.setup.party.map(\.hero.rawValue))
                }
                // And the whole body is one the APNs simulator accepts back unchanged.
                #expect(try JSONDecoder().decode(LiveActivityPayload.self, from: body) == decision.payload)
                decoded += 1
            }
        }
        #expect(decoded > 1000)
    }
}
