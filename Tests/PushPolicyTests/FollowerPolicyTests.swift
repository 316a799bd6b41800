import Foundation
import Game
import PushPolicy
import Testing
import Vocabulary
import Wire

/// The followers' pushes over the sixty adventures of `AdventureCase`, each with
/// two channels (languages and storage policies vary) and two followers per
/// token, under every scenario.
@Suite struct FollowerPolicyTests {
    static let hour = 3600

    /// Followers change nothing of what the members get: the same pushes, byte for
    /// byte, for the same reasons, and the same budgets left.
    @Test(arguments: Scenario.allCases)
    func membersGetTheSamePushesWithOrWithoutFollowers(scenario: Scenario) throws {
        var compared = 0
        for (adventureCase, run) in try scenario.runs {
            let alone = try adventureCase.run(scenario.configuration, withFollowers: false)
            let members = Set(adventureCase.recipients.map { PushDecision.Target.liveActivity(id: $0.activityID) })
                .union(adventureCase.pushToStart.map { .pushToStart(player: $0.player) })
            let ofMembers = { (decisions: [PushDecision]) in decisions.filter { members.contains($0.target) } }
            #expect(ofMembers(run.startPushes) == alone.startPushes, "\(adventureCase)")
            #expect(run.ticks.count == alone.ticks.count, "\(adventureCase)")
            for (with, without) in zip(run.ticks, alone.ticks) {
                #expect(ofMembers(with.decisions) == without.decisions, "\(adventureCase), tick \(with.state.tick)")
                #expect(ofMembers(with.decisions).map(\.body) == without.decisions.map(\.body))
                compared += without.decisions.count
            }
            for recipient in adventureCase.recipients {
                #expect(run.ledgers[recipient.activityID] == alone.ledgers[recipient.activityID], "\(adventureCase)")
            }
            // And the followers did get pushes of their own.
            #expect(run.allDecisions.count > alone.allDecisions.count)
        }
        #expect(compared > 1000)
    }

    /// A follower owns no hero: of the alerts, only the party-wide ones reach them
    /// (a main boss down, victory, defeat, time up), worded for someone outside the
    /// party; never "your hero is down". Each of those ticks alerts every channel.
    @Test(arguments: Scenario.allCases)
    func followersGetThePartyWideAlertsAndNoPersonalOnes(scenario: Scenario) throws {
        let partyWide: Set<AlertKind> = [.bossDefeated, .victory, .defeat, .timeLimitReached]
        var alerted = 0
        for (adventureCase, run) in try scenario.runs {
            let followerTargets = Set(run.followers.channels.map { PushDecision.Target.followerChannel(id: $0.channel) }
                + run.followers.activities.map { .liveActivity(id: $0.activityID) }
                + adventureCase.followerStarts.map { .pushToStart(player: $0.player) })
            for decision in run.allDecisions where followerTargets.contains(decision.target) {
                #expect(decision.hero == nil)
                guard let alert = decision.payload.alert else { continue }
                let title = try #require(alert.title.key)
                if decision.payload.isStart {
                    #expect(title == AlertKind.following.titleKey)
                    continue
                }
                let kind = try #require(partyWide.first { $0.titleKey == title }, "\(adventureCase): \(title) reached a follower")
                #expect(alert.body.key == kind.followerBodyKey, "\(adventureCase): \(title) with body \(alert.body)")
                alerted += 1
            }
            for tick in run.ticks where tick.events.contains(where: Self.isPartyWideAlert) {
                for channel in run.followers.channels {
                    let decision = try #require(tick.decisions.first { $0.target == .followerChannel(id: channel.channel) },
                                                "\(adventureCase), tick \(tick.state.tick): no broadcast")
                    #expect(decision.payload.alert != nil, "\(adventureCase), tick \(tick.state.tick): no alert")
                }
            }
        }
        #expect(alerted > 100)
    }

    static func isPartyWideAlert(_ event: GameEvent) -> Bool {
        switch event {
        case .victory, .partyWiped, .timeLimitReached: true
        case .bossDefeated(_, _, let rank): rank == .main
        default: false
        }
    }

    /// A channel gets what a follower's own activity with frequent updates off and
    /// the same language would get, tick for tick: one broadcast where such an
    /// activity gets an update, with its priority, reason and body; only the
    /// expiration follows the channel's storage policy.
    @Test(arguments: Scenario.allCases)
    func aChannelIsDecidedAsAnActivityWithFrequentUpdatesOff(scenario: Scenario) throws {
        var compared = 0
        for (adventureCase, run) in try scenario.runs {
            let stand = run.followers.channels.map {
                FollowerActivityRecipient(activityID: ActivityID("as-\($0.channel)"), player: "stand-in", frequentUpdates: false,
                                          language: $0.language)
            }
            let standIns = try PolicyRun(try Adventure(setup: adventureCase.setup, content: PolicyFixtures.content),
                                         configuration: scenario.configuration, recipients: adventureCase.recipients,
                                         followers: Followers(activities: stand), commands: adventureCase.commands)
            for (channel, standIn) in zip(run.followers.channels, stand) {
                let broadcasts = run.sent(to: channel)
                let updates = standIns.sent(to: standIn)
                #expect(broadcasts.map(\.tick) == updates.map(\.tick), "\(adventureCase), \(channel.channel)")
                for (broadcast, update) in zip(broadcasts, updates) {
                    #expect(broadcast.decision.priority == update.decision.priority)
                    #expect(broadcast.decision.reason == update.decision.reason)
                    #expect(broadcast.decision.body == update.decision.body, "\(adventureCase), tick \(broadcast.tick)")
                    compared += 1
                }
            }
        }
        #expect(compared > 1000)
    }

    @Test(arguments: Scenario.allCases)
    func timestampsStrictlyIncreasePerChannel(scenario: Scenario) throws {
        for (adventureCase, run) in try scenario.runs {
            for channel in run.followers.channels {
                let sent = run.sent(to: channel)
                #expect(!sent.isEmpty)
                for (earlier, later) in zip(sent, sent.dropFirst()) {
                    #expect(earlier.decision.payload.timestamp < later.decision.payload.timestamp,
                            "\(adventureCase), \(channel.channel): tick \(earlier.tick) then \(later.tick)")
                }
            }
        }
    }

    /// Each channel has its own hourly budget of high priority (frequent updates
    /// off) and its own spacing of routine broadcasts, worked out here.
    @Test(arguments: Scenario.allCases)
    func eachChannelKeepsItsBudgetAndSpacing(scenario: Scenario) throws {
        let configuration = scenario.configuration
        var demoted = 0
        for (adventureCase, run) in try scenario.runs {
            for channel in run.followers.channels {
                let sent = run.sent(to: channel)
                let highTimes = sent.filter { $0.decision.priority == .high }.map { $0.decision.payload.timestamp.seconds }
                for time in highTimes {
                    let inHour = highTimes.filter { $0 > time - Self.hour && $0 <= time }.count
                    #expect(inHour <= configuration.highPriorityPerHour, "\(adventureCase), \(channel.channel)")
                }
                demoted += sent.filter(\.decision.demoted).count
                for (earlier, later) in zip(sent, sent.dropFirst()) where later.decision.isRoutine {
                    let gap = later.decision.payload.timestamp.seconds - earlier.decision.payload.timestamp.seconds
                    #expect(gap >= configuration.routineSpacing, "\(adventureCase), \(channel.channel): \(gap) s apart")
                }
            }
        }
        if scenario == .smallBudget { #expect(demoted > 0, "no channel ever ran out of budget") }
    }

    /// A channel that stores nothing takes only `apns-expiration: 0`; one that keeps
    /// the most recent broadcast gets an update's stale date, an end's four hours.
    @Test(arguments: Scenario.allCases)
    func expirationFollowsTheChannelsStoragePolicy(scenario: Scenario) throws {
        var seen: Set<MessageStoragePolicy> = []
        for (adventureCase, run) in try scenario.runs {
            for channel in run.followers.channels {
                seen.insert(channel.storagePolicy)
                for item in run.sent(to: channel) {
                    let payload = item.decision.payload
                    switch (channel.storagePolicy, payload.isEnd) {
                    case (.noMessageStored, _):
                        #expect(item.decision.expiration == 0, "\(adventureCase), tick \(item.tick)")
                    case (.mostRecentMessageStored, false):
                        #expect(item.decision.expiration == payload.staleDate?.seconds)
                    case (.mostRecentMessageStored, true):
                        #expect(item.decision.expiration == payload.timestamp.seconds + 4 * 3600)
                    }
                }
            }
        }
        #expect(seen == Set(MessageStoragePolicy.allCases))
    }

    /// Every channel and every follower's activity ends with the final state and a
    /// dismissal date.
    @Test(arguments: Scenario.allCases)
    func everyFollowerEndsWithTheFinalStateAndADismissalDate(scenario: Scenario) throws {
        let delay = scenario.configuration.dismissalDelay
        for (adventureCase, run) in try scenario.runs {
            let finalTime = PolicyFixtures.startedAt + run.finalState.tick * adventureCase.setup.tickInterval
            let lasts = try run.followers.channels.map { try #require(run.sent(to: $0).last) }
                + run.followers.activities.map { try #require(run.sent(to: $0).last) }
            for last in lasts {
                #expect(last.tick == run.finalState.tick, "\(adventureCase): the end did not arrive")
                #expect(last.decision.payload.isEnd)
                #expect(last.decision.payload.dismissalDate?.seconds == finalTime + delay)
                #expect(last.decision.payload.relevanceScore == 0)
                #expect(last.decision.payload.contentState.potions == run.finalState.potions)
            }
        }
    }

    /// A follower reads the party's state in their own language: every hero's
    /// health, the party's health together where a member sees their hero's, and
    /// the event's text in the follower's language. A follower's activity names no
    /// hero of its own.
    @Test func followersSeeThePartyInTheirLanguage() throws {
        var checked = 0
        for (adventureCase, run) in try Scenario.standard.runs {
            for channel in run.followers.channels {
                for item in run.sent(to: channel) {
                    let state = item.decision.payload.contentState
                    let text = LocalizedText(key: state.latestEvent.key, args: state.latestEvent.args)
                    #expect(state.eventDescription == PolicyFixtures.strings.format(text, language: channel.language)
                            || state.eventDescription.hasSuffix("…"), "\(adventureCase), tick \(item.tick)")
                    let health = item.state.heroes.reduce(0) { $0 + $1.health }
                    let maxHealth = item.state.heroes.reduce(0) { $0 + $1.maxHealth }
                    #expect(PolicyFixtures.isClose(state.currentHealthLevel, PolicyFixtures.level(health, maxHealth)))
                    #expect(state.heroes.map(\.id) == item.state.heroes.map(\.hero.rawValue))
                    checked += 1
                }
            }
            for start in run.startPushes where start.hero == nil {
                #expect(start.payload.attributes?.heroID == "")
                #expect(start.payload.attributes?.party.map(\.id) == adventureCase.setup.party.map(\.hero.rawValue))
            }
        }
        #expect(checked > 1000)
    }
}
