import Catalog
import Foundation
import Game
import Replay
import Store
import Vocabulary

/// The live page's stream for one adventure: everything from the store, read
/// again every `pollInterval`, so whichever node serves the page, it shows what
/// every node stored. On each connection it sends the adventure and the cards,
/// then what the page lacks after its cursor (the timeline's ticks and the push
/// log), then whatever is new, and the server's clock every second.
public struct LiveStream: Sendable {
    public struct Settings: Sendable {
        /// How often the store is read while the adventure runs or a push waits.
        public var pollInterval: Duration = .milliseconds(250)
        /// How often once the adventure is over and nothing waits to be sent.
        public var restingPollInterval: Duration = .seconds(1)
        public var clockInterval: Duration = .seconds(1)
        /// Push log entries read at once.
        public var pageSize = 500
        /// A page that joins late gets the timeline so far in at most this many samples.
        public var mostCatchUpSamples = 2000
        /// How long the browser waits before reconnecting, in milliseconds.
        public var reconnectMilliseconds = 1000

        public init() {}
    }

    let store: any RangersStore
    let content: LoadedContent
    let adventure: AdventureID
    /// When the link the page was opened with ends (unix seconds): the stream ends then.
    let linkExpiresAt: Int
    let now: @Sendable () -> Date
    let endpoint: EndpointRecords?
    let settings: Settings

    public init(store: any RangersStore, content: LoadedContent, adventure: AdventureID, linkExpiresAt: Int,
                now: @escaping @Sendable () -> Date, endpoint: EndpointRecords? = nil, settings: Settings = Settings()) {
        self.store = store
        self.content = content
        self.adventure = adventure
        self.linkExpiresAt = linkExpiresAt
        self.now = now
        self.endpoint = endpoint
        self.settings = settings
    }

    /// Sends the stream's text to `send` until the link expires, `isStopping` says
    /// so (the server stops: within a poll interval), `send` throws (the browser
    /// went away) or the task is cancelled. Without `follow`, it stops once it has
    /// sent what there is: what a page would show at this moment, for a tool.
    public func run(from cursor: LiveCursor, follow: Bool = true, isStopping: () -> Bool = { false },
                    send: (String) async throws -> Void) async throws {
        try await send(ServerSentEvent.retry(milliseconds: settings.reconnectMilliseconds))
        var stored = try await store.adventure(adventure)
        var directory = try await cards(of: stored)
        var timeline = try await timeline(of: stored)
        try await send(try LiveMessage.event("adventure", adventureMessage(stored, directory.cards, timeline)).text)

        var position = cursor
        let catchUp = timeline.samples.filter { $0.tick > cursor.tick || ($0.tick == 0 && cursor.tick == 0) }
        if !catchUp.isEmpty {
            position.tick = max(cursor.tick, timeline.follower?.tick ?? 0)
            try await send(try LiveMessage.event("ticks", LiveMessage.Ticks(samples: thinned(catchUp)), id: position.description).text)
        }

        var waitingShown: [String: [LiveMessage.Waiting.Push]]?
        var nextClock = ContinuousClock.now
        let followable = stored.followCode != nil
        // The connection began with them: read again a second later.
        var nextFollowersRead = ContinuousClock.now + settings.clockInterval
        while !isStopping() {
            try Task.checkCancellation()
            // The adventure's followers are read at most once a pass: once a second
            // (their counts, a channel made or waited for), and when a push names a
            // channel or a follower's device the page has not heard of.
            var followers = FollowersRead(followable: followable, due: ContinuousClock.now >= nextFollowersRead)
            guard Int(now().timeIntervalSince1970) < linkExpiresAt else {
                try await send(try LiveMessage.event("expired", LiveMessage.Notice(
                    message: LiveLinkRefusal.expired(at: linkExpiresAt).description)).text)
                return
            }

            var page: PushLogPage
            repeat {
                page = try await store.pushLog(of: adventure, after: position.pushLog, limit: settings.pageSize)
                let reached = endpoint.map { $0.devicesReached(page.entries.compactMap(\.entry.apnsID)) }
                for item in page.entries {
                    position.pushLog = item.cursor
                    guard let card = try await card(of: item.entry.target, payload: item.entry.payload, &directory, &followers, send: send)
                    else { continue }
                    var push = LiveMessage.Push(item.entry, card: card)
                    if let reached {
                        push.endpoint = LiveMessage.Push.EndpointRecord(devicesReached: item.entry.apnsID.flatMap { reached[$0] })
                    }
                    try await send(try LiveMessage.event("push", push, id: position.description).text)
                }
            } while page.entries.count == settings.pageSize

            var waiting: [String: [LiveMessage.Waiting.Push]] = [:]
            for entry in page.waitingForRetry {
                guard let card = try await card(of: entry.message.target, payload: entry.message.payload, &directory, &followers,
                                                 send: send)
                else { continue }
                waiting[card, default: []].append(LiveMessage.Waiting.Push(
                    tick: entry.tick, priority: entry.message.priority.rawValue, decision: entry.message.reason,
                    outcome: entry.outcome, attempts: entry.attempts))
            }
            if waiting != waitingShown {
                waitingShown = waiting
                try await send(try LiveMessage.event("waiting", LiveMessage.Waiting(cards: waiting)).text)
            }

            stored = try await store.adventure(adventure)
            if var follower = timeline.follower, stored.lastTick > follower.tick {
                let samples = follower.advance(to: stored.lastTick, commands: try await store.commands(of: adventure))
                if follower.tick == stored.lastTick, !follower.matches(stored.state) {
                    timeline.follower = nil
                    try await send(try LiveMessage.event("timelineUnavailable", LiveMessage.Notice(
                        message: "the game played again differs from the stored adventure at tick \(stored.lastTick)")).text)
                } else {
                    timeline.follower = follower
                    position.tick = follower.tick
                    try await send(try LiveMessage.event("ticks", LiveMessage.Ticks(samples: samples), id: position.description).text)
                }
            }

            if followers.due {
                nextFollowersRead = ContinuousClock.now + settings.clockInterval
                try await learnFollowers(&directory, &followers, send: send)
            }
            if ContinuousClock.now >= nextClock {
                nextClock = ContinuousClock.now + settings.clockInterval
                try await send(try LiveMessage.event("clock", LiveMessage.Clock(now: now().timeIntervalSince1970)).text)
            }
            guard follow else { return }
            let resting = stored.status != .running && page.waitingForRetry.isEmpty
            try await Task.sleep(for: resting ? settings.restingPollInterval : settings.pollInterval)
        }
    }

    // MARK: - What a connection starts from

    /// The roster's cards, each with the language its phone reported: the
    /// activity's if it has one the server can reach, else its device's.
    private func cards(of stored: StoredAdventure) async throws -> LiveCardDirectory {
        var directory = LiveCardDirectory(roster: stored.setup.party)
        for device in try await store.pushToStartDevices(of: stored.setup.party) {
            _ = directory.learn(hero: device.recipient.hero, language: device.recipient.language)
        }
        let inputs = try await store.tickInputs(of: adventure)
        for recipient in inputs.recipients {
            _ = directory.learn(hero: recipient.hero, language: recipient.language, activity: recipient.activityID)
        }
        if stored.followCode != nil {
            for follower in inputs.followers.activities {
                _ = directory.learn(followerActivity: follower.activityID, language: follower.language)
            }
            _ = directory.learn(followers: try await store.followers(of: adventure),
                                channels: try await store.followerChannels(of: adventure))
        }
        return directory
    }

    private struct Timeline {
        var follower: TimelineFollower?
        var samples: [TimelineSample] = []
        var unavailable: String?
    }

    /// The game played again to the stored tick: the timeline so far. None when
    /// the adventure began with other content, or the game played here does not
    /// end where the stored one stands.
    private func timeline(of stored: StoredAdventure) async throws -> Timeline {
        guard stored.contentVersion == content.version else {
            return Timeline(unavailable: "the adventure began with other content (\(stored.contentVersion)) than the server's "
                            + "(\(content.version))")
        }
        guard var follower = try? TimelineFollower(setup: stored.setup, content: content.game) else {
            return Timeline(unavailable: "the content no longer plays this adventure's setup")
        }
        let samples = [follower.startSample] + follower.advance(to: stored.lastTick, commands: try await store.commands(of: adventure))
        guard follower.matches(stored.state) else {
            return Timeline(unavailable: "the game played again differs from the stored adventure at tick \(stored.lastTick)")
        }
        return Timeline(follower: follower, samples: samples)
    }

    private func adventureMessage(_ stored: StoredAdventure, _ cards: [LiveCard], _ timeline: Timeline) -> LiveMessage.Adventure {
        let game = content.game
        let heroes = stored.setup.party.map { member in
            game.hero(member.hero).map { LiveMessage.Adventure.Figure(id: $0.id.rawValue, name: $0.name, avatar: $0.avatar) }
                ?? LiveMessage.Adventure.Figure(id: member.hero.rawValue, name: member.hero.rawValue, avatar: "❔")
        }
        let route = game.route(stored.setup.route)
        let bosses = (route?.bosses ?? []).map { id in
            game.boss(id).map { LiveMessage.Adventure.Figure(id: $0.id.rawValue, name: $0.name, avatar: $0.avatar) }
                ?? LiveMessage.Adventure.Figure(id: id.rawValue, name: id.rawValue, avatar: "❔")
        }
        let languages = StringCatalog.requiredLanguages
        var strings: [String: [String: String]] = [:]
        for language in languages {
            strings[language] = Dictionary(uniqueKeysWithValues: content.strings.keys.compactMap { key in
                content.strings.textOrSource(key, language: language).map { (key, $0) }
            })
        }
        return LiveMessage.Adventure(
            id: stored.id.rawValue, route: route?.name ?? stored.setup.route.rawValue, tickInterval: stored.setup.tickInterval,
            startedAt: stored.startedAt, status: stored.status.rawValue, lastTick: stored.lastTick, heroes: heroes,
            bosses: bosses, cards: cards, languages: languages, strings: strings, timelineUnavailable: timeline.unavailable,
            linkExpiresAt: linkExpiresAt, now: now().timeIntervalSince1970)
    }

    // MARK: - On the way

    /// Whether this pass of the stream read the adventure's followers already, or must.
    private struct FollowersRead {
        var followable: Bool
        var due: Bool
        var done = false
    }

    /// The followers' cards as the store has them now, the page told of each that is new or changed.
    private func learnFollowers(_ directory: inout LiveCardDirectory, _ read: inout FollowersRead,
                                send: (String) async throws -> Void) async throws {
        guard read.followable, !read.done else { return }
        read.done = true
        let changed = directory.learn(followers: try await store.followers(of: adventure),
                                      channels: try await store.followerChannels(of: adventure))
        for card in changed {
            try await send(try LiveMessage.event("card", card).text)
        }
    }

    /// The card a push belongs to, learning (and telling the page) of an activity,
    /// a channel or a follower registered since the connection began; nil for a
    /// push no card shows.
    private func card(of target: PushTarget, payload: Data, _ directory: inout LiveCardDirectory, _ followers: inout FollowersRead,
                      send: (String) async throws -> Void) async throws -> String? {
        switch directory.route(target, payload: payload) {
        case .card(let key):
            return key
        case .none:
            return nil
        case .unknownFollowers:
            guard followers.followable, !followers.done else { return nil }
            try await learnFollowers(&directory, &followers, send: send)
            guard case .card(let key) = directory.route(target, payload: payload) else { return nil }
            return key
        case .unknownActivity(let id):
            guard let activity = try? await store.liveActivity(id), activity.adventure == adventure else { return nil }
            if let changed = directory.learn(activity) {
                try await send(try LiveMessage.event("card", changed).text)
            }
            guard case .card(let key) = directory.route(target, payload: payload) else { return nil }
            return key
        }
    }

    /// At most `mostCatchUpSamples`, keeping the first and last, every boss change
    /// and an even spread of the rest: the chart's shape at any screen width.
    private func thinned(_ samples: [TimelineSample]) -> [TimelineSample] {
        guard samples.count > settings.mostCatchUpSamples else { return samples }
        let step = (samples.count + settings.mostCatchUpSamples - 1) / settings.mostCatchUpSamples
        return samples.enumerated().filter { index, sample in
            index % step == 0 || index == samples.count - 1 || (index > 0 && samples[index - 1].bossIndex != sample.bossIndex)
        }.map(\.element)
    }
}
