import Catalog
import Foundation
import Game
import Vocabulary
import Wire

/// Decides, for one adventure, which push each Live Activity gets and why.
/// Pure: the same events, state, recipients, ledgers and time give the same
/// pushes. It sends nothing.
public struct PushPolicy: Sendable {
    public let configuration: PushPolicyConfiguration
    public let adventureID: AdventureID
    public let adventure: Adventure
    public let content: GameContent
    /// Unix seconds of the adventure's start; tick `n` happens `n` tick intervals later.
    public let startedAt: Int
    let states: ContentStates

    init(configuration: PushPolicyConfiguration, adventureID: AdventureID, adventure: Adventure,
                content: GameContent, strings: StringCatalog, startedAt: Int) {
        self.configuration = configuration
        self.adventureID = adventureID
        self.adventure = adventure
        self.content = content
        self.startedAt = startedAt
        states = ContentStates(routeName: content.route(adventure.setup.route)?.name ?? adventure.setup.route.rawValue,
                               strings: strings)
    }

    /// What a start push gives the new activity. A follower's (`hero` nil) has no
    /// hero of its own: `heroID` is empty.
    func attributes(for hero: HeroID?) -> AdventureAttributes {
        AdventureAttributes(
            adventureID: adventureID.rawValue,
            heroID: hero?.rawValue ?? "",
            routeName: states.routeName,
            party: adventure.heroes.map { HeroSummary(id: $0.id.rawValue, name: $0.name, avatar: $0.avatar) },
            bosses: adventure.bosses.map { BossSummary(id: $0.id.rawValue, name: $0.name, avatar: $0.avatar) },
            endsAt: Date(timeIntervalSince1970: TimeInterval(startedAt + adventure.setup.timeLimit))
        )
    }

    public func time(ofTick tick: Int) -> Int {
        Self.time(ofTick: tick, startedAt: startedAt, tickInterval: adventure.setup.tickInterval)
    }

    /// Unix seconds of tick `tick` of an adventure that started at `startedAt`.
    public static func time(ofTick tick: Int, startedAt: Int, tickInterval: Int) -> Int { startedAt + tick * tickInterval }

    /// Push-to-start: a `start` for each member's device that registered a token,
    /// asking the new activity for an update token.
    public func pushesForStart(state: AdventureState, recipients: [PushToStartRecipient]) throws -> [PushDecision] {
        let now = time(ofTick: state.tick)
        let firstBoss = name(of: state.boss.boss)
        return try recipients.map { recipient in
            let heroName = content.hero(recipient.hero)?.name ?? recipient.hero.rawValue
            let alert = localizedAlert(.adventureStarted, title: [], body: [heroName, firstBoss])
            let latest = GameEvent.nextBossAppears(boss: state.boss.boss).text(names: content)
            let payload = LiveActivityPayload(
                timestamp: UnixTimestamp(seconds: now),
                event: .start(attributes: attributes(for: recipient.hero), alert: alert, requestsUpdateToken: true),
                contentState: states.contentState(state, for: recipient.hero, latest: latest, language: recipient.language),
                staleDate: UnixTimestamp(seconds: staleDate(after: now, frequentUpdates: true)),
                relevanceScore: relevance(state, for: recipient.hero)
            )
            return try PushDecision(
                target: .pushToStart(player: recipient.player), player: recipient.player, hero: recipient.hero,
                priority: .high, reason: "adventure started: push-to-start needs an alert", demoted: false,
                expiration: startedAt + adventure.setup.timeLimit, payload: payload)
        }
    }

    /// The pushes after one tick: at most one per activity, carrying the newest
    /// state, with the priority and alert of the tick's most important event for
    /// that activity. `end` for every activity once the adventure is over.
    public func pushes(after events: [GameEvent], state: AdventureState, recipients: [LiveActivityRecipient],
                       ledgers: inout [ActivityID: BudgetLedger]) throws -> [PushDecision] {
        var decisions: [PushDecision] = []
        for recipient in recipients {
            var ledger = ledgers[recipient.activityID] ?? BudgetLedger()
            if let decision = try push(for: Viewer(recipient), after: events, state: state, ledger: &ledger) {
                decisions.append(decision)
            }
            ledgers[recipient.activityID] = ledger
        }
        return decisions
    }

    /// The followers' pushes after one tick, decided as a member's are, from the
    /// same events, for an activity that owns no hero: one broadcast per channel
    /// where a member's activity gets an update, each channel with its own budget
    /// and spacing (as an activity with frequent updates off: its listeners'
    /// settings are unknown) and strictly increasing timestamps; each follower's
    /// own activity as a member's. Only the party-wide alerts (a main boss down,
    /// victory, defeat, time up) reach followers, worded for them; the members'
    /// pushes do not depend on them.
    public func followerPushes(after events: [GameEvent], state: AdventureState, followers: Followers,
                               activityLedgers: inout [ActivityID: BudgetLedger],
                               channelLedgers: inout [FollowerChannelID: BudgetLedger]) throws -> [PushDecision] {
        var decisions: [PushDecision] = []
        for channel in followers.channels {
            var ledger = channelLedgers[channel.channel] ?? BudgetLedger()
            if let decision = try push(for: Viewer(channel), after: events, state: state, ledger: &ledger) {
                decisions.append(decision)
            }
            channelLedgers[channel.channel] = ledger
        }
        for activity in followers.activities {
            var ledger = activityLedgers[activity.activityID] ?? BudgetLedger()
            if let decision = try push(for: Viewer(activity), after: events, state: state, ledger: &ledger) {
                decisions.append(decision)
            }
            activityLedgers[activity.activityID] = ledger
        }
        return decisions
    }

    /// What a follower's Live Activity starts with: the attributes (no hero of its
    /// own) and the party's state in the follower's language, for the app's
    /// `Activity.request(…, pushType: .channel(id))` on iOS 18.
    public func followerView(state: AdventureState, language: String)
        -> (attributes: AdventureAttributes, contentState: AdventureAttributes.ContentState, staleDate: UnixTimestamp?)
    {
        let now = time(ofTick: state.tick)
        let latest = GameEvent.nextBossAppears(boss: state.boss.boss).text(names: content)
        return (attributes(for: nil), states.contentState(state, for: nil, latest: latest, language: language),
                state.isRunning ? UnixTimestamp(seconds: staleDate(after: now, frequentUpdates: false)) : nil)
    }

    /// Push-to-start for a follower whose app cannot listen on a channel: a
    /// `start` with the followers' attributes and the party's state now, asking
    /// the new activity for an update token.
    public func pushForFollowerStart(state: AdventureState, recipient: FollowerStartRecipient) throws -> PushDecision {
        let now = time(ofTick: state.tick)
        let (attributes, contentState, _) = followerView(state: state, language: recipient.language)
        let alert = localizedAlert(.following, title: [], body: [states.routeName, name(of: state.boss.boss)])
        let payload = LiveActivityPayload(
            timestamp: UnixTimestamp(seconds: now),
            event: .start(attributes: attributes, alert: alert, requestsUpdateToken: true),
            contentState: contentState,
            staleDate: UnixTimestamp(seconds: staleDate(after: now, frequentUpdates: true)),
            relevanceScore: relevance(state, for: nil))
        return try PushDecision(
            target: .pushToStart(player: recipient.player), player: recipient.player, hero: nil,
            priority: .high, reason: "following started: push-to-start needs an alert", demoted: false,
            expiration: startedAt + adventure.setup.timeLimit, payload: payload)
    }

    /// Whose activity (or channel) a push is for, as the rules see it.
    private struct Viewer {
        var target: PushDecision.Target
        var player: PlayerID?
        /// Nil for a follower: every event is about someone else's hero.
        var hero: HeroID?
        var language: String
        var frequentUpdates: Bool
        /// A channel's: nil for a device token.
        var storagePolicy: MessageStoragePolicy?

        init(_ member: LiveActivityRecipient) {
            target = .liveActivity(id: member.activityID)
            player = member.player
            hero = member.hero
            language = member.language
            frequentUpdates = member.frequentUpdates
        }

        init(_ channel: FollowerChannelRecipient) {
            target = .followerChannel(id: channel.channel)
            language = channel.language
            frequentUpdates = false
            storagePolicy = channel.storagePolicy
        }

        init(_ follower: FollowerActivityRecipient) {
            target = .liveActivity(id: follower.activityID)
            player = follower.player
            language = follower.language
            frequentUpdates = follower.frequentUpdates
        }
    }

    private func push(for viewer: Viewer, after events: [GameEvent], state: AdventureState,
                      ledger: inout BudgetLedger) throws -> PushDecision? {
        let now = time(ofTick: state.tick)
        guard let (rule, event) = PushRule.mostImportant(of: events, for: viewer.hero) else { return nil }
        let ended = !state.isRunning

        var priority = rule.priority
        var reason = "\(rule.pattern): \(rule.why)"
        var demoted = false
        if priority == .high {
            let budget = configuration.budget(frequentUpdates: viewer.frequentUpdates)
            if ledger.highPriorityCount(at: now) >= budget {
                priority = .low
                demoted = true
                reason += "; demoted to 5: \(budget) high-priority pushes in the last hour already"
                    + " (frequent updates \(viewer.frequentUpdates ? "on" : "off"))"
            }
        }
        let alert = rule.alert.map { makeAlert($0, for: event, state: state, follower: viewer.hero == nil) }
        // Routine news may wait; its state rides on the next push.
        if !ended, alert == nil, priority == .low, let last = ledger.lastPushAt,
           now - last < configuration.routineSpacing(frequentUpdates: viewer.frequentUpdates) {
            return nil
        }

        let contentState = states.contentState(state, for: viewer.hero, latest: event.text(names: content),
                                               language: viewer.language)
        let relevance = relevance(state, for: viewer.hero)
        let payload: LiveActivityPayload
        var expiration: Int
        if ended {
            let dismissal = UnixTimestamp(seconds: configuration.dismissalDate(ofEndAt: now))
            payload = LiveActivityPayload(
                timestamp: UnixTimestamp(seconds: now), event: .end(dismissalDate: dismissal, alert: alert),
                contentState: contentState, relevanceScore: relevance)
            // A late end still helps: it takes the activity off the Lock Screen.
            expiration = now + 4 * 3600
        } else {
            let stale = staleDate(after: now, frequentUpdates: viewer.frequentUpdates)
            payload = LiveActivityPayload(
                timestamp: UnixTimestamp(seconds: now), event: .update(alert: alert), contentState: contentState,
                staleDate: UnixTimestamp(seconds: stale), relevanceScore: relevance)
            expiration = stale
        }
        // A channel that stores nothing takes only "now or never" (APNs refuses any
        // other expiration on it); one that keeps the most recent broadcast keeps it
        // until then for a device that comes back or starts listening later.
        if viewer.storagePolicy == .noMessageStored { expiration = 0 }
        ledger.record(at: now, priority: priority)
        return try PushDecision(target: viewer.target, player: viewer.player, hero: viewer.hero, priority: priority,
                                reason: reason, demoted: demoted, expiration: expiration, payload: payload)
    }

    /// When the next update is overdue by a margin: a few expected updates missed.
    func staleDate(after now: Int, frequentUpdates: Bool) -> Int {
        let expectedGap = max(adventure.setup.tickInterval, configuration.routineSpacing(frequentUpdates: frequentUpdates))
        return now + max(configuration.minimumStaleSeconds, expectedGap * configuration.staleAfterMissedUpdates)
    }

    /// 0…100. A knocked-down hero is 100; otherwise 20 plus up to 79 for whichever
    /// is closer to the end, the hero's health or the boss's, so a hero hanging on
    /// by a thread still sorts below one that is down. An ended adventure is 0, so
    /// running ones sort above it.
    /// A follower's (no hero) counts the whole party's health as its own.
    func relevance(_ state: AdventureState, for hero: HeroID?) -> Double {
        guard state.isRunning else { return 0 }
        let danger: Double
        if let hero {
            guard let own = state.hero(hero) else { return 20 }
            if own.isKnockedDown { return 100 }
            danger = 1 - Double(own.health) / Double(own.maxHealth)
        } else {
            danger = 1 - ContentStates.partyHealth(state)
        }
        let bossFalling = 1 - Double(state.boss.health) / Double(state.boss.maxHealth)
        return min(99, (20 + 80 * max(danger, bossFalling)).rounded())
    }

    private func name(of boss: BossID) -> String { content.boss(boss)?.name ?? boss.rawValue }

    private func makeAlert(_ kind: AlertKind, for event: GameEvent, state: AdventureState, follower: Bool) -> Alert {
        switch (kind, event) {
        case (.heroKnockedDown, .heroKnockedDown(let hero, _)):
            let heroName = content.hero(hero)?.name ?? hero.rawValue
            return localizedAlert(kind, title: [heroName], body: [heroName], follower: follower)
        case (.bossDefeated, .bossDefeated(let boss, _, _)):
            return localizedAlert(kind, title: [name(of: boss)], body: [name(of: state.boss.boss)], follower: follower)
        default:
            // victory, defeat, time limit: the body names the boss of the end.
            return localizedAlert(kind, title: [], body: [name(of: event.boss ?? state.boss.boss)], follower: follower)
        }
    }

    private func localizedAlert(_ kind: AlertKind, title: [String], body: [String], follower: Bool = false) -> Alert {
        let bodyKey = follower ? kind.followerBodyKey ?? kind.bodyKey : kind.bodyKey
        return Alert(title: .localized(key: kind.titleKey, args: title), body: .localized(key: bodyKey, args: body),
                     sound: kind.sound)
    }

    /// Every catalog key the policy can put in an alert, with its argument count,
    /// and every sound it names: checked against Content/ at start.
    public static var emittedTexts: [(key: String, arguments: Int)] { texts(forFollowers: true) }

    public static var emittedSounds: [String] { Array(Set(AlertKind.allCases.map(\.sound))).sorted() }

    /// What the content must hold for this policy: passed to `LoadedContent.load`.
    public static var contentRequirements: ContentRequirements {
        ContentRequirements(texts: emittedTexts, sounds: emittedSounds)
    }

    /// What a saved session's content must hold to be played again: the members'
    /// alerts only (a session keeps no followers, and one saved before followers
    /// carries a catalog without their texts).
    public static var memberContentRequirements: ContentRequirements {
        ContentRequirements(texts: texts(forFollowers: false), sounds: emittedSounds)
    }

    private static func texts(forFollowers: Bool) -> [(key: String, arguments: Int)] {
        AlertKind.allCases.filter { forFollowers || $0 != .following }.flatMap { kind in
            [(kind.titleKey, kind.argumentCounts.title), (kind.bodyKey, kind.argumentCounts.body)]
                + (forFollowers ? kind.followerBodyKey.map { [($0, kind.argumentCounts.body)] } ?? [] : [])
        }
    }
}
