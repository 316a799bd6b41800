import Catalog
import Foundation
import Game
import LiveView
import Replay
import Store
import StoreTestSupport
import Testing
import Vocabulary

/// The live page's stream over a real store (each engine): what a page that
/// joins gets, what it gets as the adventure goes on, and from where it resumes.
@Suite(.closesStores) struct LiveStreamTests {
    static let content = try! LoadedContent.load(from: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Content"))

    /// An adventure of Ana (en), Bao (vi) and Chae (ko), each with a Live Activity.
    struct Running {
        let store: any RangersStore
        let trio: Trio
        let adventure: StoredAdventure
        let activities: [ActivityID]

        static func start(_ engine: StoreEngine, contentVersion: String = LiveStreamTests.content.version,
                          followCode: FollowCode? = nil) async throws -> Running {
            let store = try await engine.open()
            let trio = try await Trio.make(in: store)
            let game = try trio.game(seed: 7, tickInterval: 1)
            let adventure = try await store.startAdventure(party: trio.party.id, setup: game.setup, state: game.start(),
                                                           startedAt: 1_000, contentVersion: contentVersion, followCode: followCode,
                                                           outbox: [])
            var activities: [ActivityID] = []
            for (index, (member, language)) in zip(trio.roster, ["en", "vi", "ko"]).enumerated() {
                let id = ActivityID("activity-\(index)")
                try await store.registerLiveActivity(activityID: id, player: member.player, adventure: adventure.id, hero: member.hero,
                                                     token: Tokens.make(index), frequentUpdates: true, locale: language)
                activities.append(id)
            }
            return Running(store: store, trio: trio, adventure: adventure, activities: activities)
        }

        /// The next tick, with a push to each activity, each answered (`answer` for the first).
        func tick(firstAnswer: PushOutcome = .delivered(apnsID: "ok")) async throws {
            let next = try await store.adventure(adventure.id).lastTick + 1
            try await store.playNextTick(of: adventure.id) { _ in activities.map { update($0, tick: next) } }
            for push in try await store.claimOutbox(limit: 10) {
                try await store.record(push.message.target == .liveActivity(activities[0]) ? firstAnswer : .delivered(apnsID: "ok"),
                                       for: push)
            }
        }

        func stream(expiresAt: Int = Int(Date().timeIntervalSince1970) + 3600) -> LiveStream {
            var settings = LiveStream.Settings()
            settings.pollInterval = .milliseconds(20)
            settings.restingPollInterval = .milliseconds(20)
            return LiveStream(store: store, content: LiveStreamTests.content, adventure: adventure.id, linkExpiresAt: expiresAt,
                              now: Date.init, settings: settings)
        }
    }

    struct Message {
        var id: String?
        var event: String
        var data: [String: Any]
    }

    /// What the stream sent, read as a browser reads it, until `enough` holds.
    final class Reader: @unchecked Sendable {
        private let lock = NSLock()
        private var text = ""
        private var satisfied = false
        let enough: @Sendable ([Message]) -> Bool

        init(until enough: @escaping @Sendable ([Message]) -> Bool) { self.enough = enough }

        func receive(_ more: String) {
            lock.withLock {
                text += more
                if enough(Self.parse(text)) { satisfied = true }
            }
        }

        var isDone: Bool { lock.withLock { satisfied } }
        var messages: [Message] { lock.withLock { Self.parse(text) } }

        static func parse(_ text: String) -> [Message] {
            text.components(separatedBy: "\n\n").dropLast().compactMap { block in
                var id: String?, event = "message", data: [String] = []
                for line in block.split(separator: "\n") {
                    if line.hasPrefix("id: ") { id = String(line.dropFirst(4)) }
                    if line.hasPrefix("event: ") { event = String(line.dropFirst(7)) }
                    if line.hasPrefix("data: ") { data.append(String(line.dropFirst(6))) }
                }
                guard !data.isEmpty else { return nil }
                let object = (try? JSONSerialization.jsonObject(with: Data(data.joined(separator: "\n").utf8))) as? [String: Any]
                return Message(id: id, event: event, data: object ?? [:])
            }
        }
    }

    /// Runs `stream` from `cursor` until `enough` holds (or 20 s pass), doing `meanwhile` as it runs.
    func follow(_ stream: LiveStream, from cursor: LiveCursor = .start,
                until enough: @escaping @Sendable ([Message]) -> Bool,
                meanwhile: @Sendable () async throws -> Void = {}) async throws -> [Message] {
        let reader = Reader(until: enough)
        let deadline = ContinuousClock.now + .seconds(20)
        async let running: Void = stream.run(from: cursor, isStopping: { reader.isDone || ContinuousClock.now > deadline }) {
            reader.receive($0)
        }
        // What happens meanwhile happens once the page has what it opened with.
        while !reader.messages.contains(where: { $0.event == "adventure" }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        try await meanwhile()
        try await running
        #expect(reader.isDone, "the stream ended before it said what was expected: \(reader.messages.map(\.event))")
        return reader.messages
    }

    static func pushes(_ messages: [Message]) -> [Message] { messages.filter { $0.event == "push" } }

    @Test(arguments: StoreEngine.available) func aPageThatJoinsGetsTheCardsTheTimelineSoFarAndEveryPushWithItsCursor(engine: StoreEngine) async throws {
        let running = try await Running.start(engine)
        for _ in 0..<2 { try await running.tick() }
        try await running.tick(firstAnswer: .tokenInvalid(status: 410, reason: "Unregistered", since: nil))
        let messages = try await follow(running.stream()) { Self.pushes($0).count == 9 && $0.contains { $0.event == "waiting" } }

        let adventure = try #require(messages.first { $0.event == "adventure" })
        #expect(messages.first?.event == "adventure")
        let cards = try #require(adventure.data["cards"] as? [[String: Any]])
        #expect(cards.map { $0["key"] as? String } == ["hero:power-panda", "hero:egghead", "hero:spouty"])
        // Ana's phone is gone, so the server learns its language from its pushes, and says so before them.
        #expect(cards.map { $0["language"] as? String } == [nil, "vi", "ko"])
        let learned = messages.filter { $0.event == "card" }
        #expect(learned.map { $0.data["key"] as? String } == ["hero:power-panda"])
        #expect(learned.first?.data["language"] as? String == "en")
        #expect(messages.firstIndex { $0.event == "card" }! < messages.firstIndex { $0.data["card"] as? String == "hero:power-panda" }!)
        let heroes = try #require(adventure.data["heroes"] as? [[String: Any]])
        #expect(heroes.map { $0["avatar"] as? String } == running.trio.heroes.map { Self.content.game.hero($0)?.avatar })
        let strings = try #require(adventure.data["strings"] as? [String: [String: String]])
        #expect(strings["vi"]?["alert.heroKnockedDown.title"] == Self.content.strings.text("alert.heroKnockedDown.title", language: "vi"))
        #expect(adventure.data["timelineUnavailable"] == nil)

        // The timeline so far: the start and three ticks, the last as the store has it.
        let ticks = try #require(messages.first { $0.event == "ticks" })
        let samples = try #require(ticks.data["samples"] as? [[String: Any]])
        #expect(samples.map { $0["tick"] as? Int } == [0, 1, 2, 3])
        let stored = try await running.store.adventure(running.adventure.id)
        #expect(samples.last?["heroHealth"] as? [Int] == TimelineSample(stored.state).heroHealth)
        #expect(ticks.id.flatMap(LiveCursor.init)?.tick == 3)

        // Every push, in the log's order, each with the cursor after it; the 410 as a phone gone.
        let pushes = Self.pushes(messages)
        let log = try await running.store.pushLog(of: running.adventure.id, after: .start, limit: 100)
        #expect(pushes.compactMap { $0.id.flatMap(LiveCursor.init)?.pushLog } == log.entries.map(\.cursor))
        #expect(pushes.map { $0.data["card"] as? String } == log.entries.map { entry in
            "hero:" + running.trio.heroes[running.activities.firstIndex { .liveActivity($0) == entry.entry.target }!].rawValue
        })
        #expect(pushes.filter { $0.data["answer"] as? String == "gone" }.map { $0.data["card"] as? String } == ["hero:power-panda"])
        #expect(pushes.allSatisfy { ($0.data["payload"] as? String)?.hasPrefix(#"{"aps":"#) == true })
        #expect(pushes.allSatisfy { ($0.data["token"] as? String)?.count == 9 }, "a token's first digits, not the token")
        let waiting = try #require(messages.first { $0.event == "waiting" })
        #expect((waiting.data["cards"] as? [String: Any])?.isEmpty == true)
    }

    @Test(arguments: StoreEngine.available) func aPageResumingFromItsLastEventIDGetsOnlyWhatItLacks(engine: StoreEngine) async throws {
        let running = try await Running.start(engine)
        try await running.tick()
        let first = try await follow(running.stream()) { Self.pushes($0).count == 3 }
        let resumeAt = try #require(first.last { $0.id != nil }?.id.flatMap(LiveCursor.init))
        #expect(resumeAt.tick == 1)

        try await running.tick()
        try await running.tick()
        let resumed = try await follow(running.stream(), from: resumeAt) { Self.pushes($0).count == 6 && $0.contains { $0.event == "ticks" } }
        #expect(resumed.first?.event == "adventure", "a page that reconnects learns the adventure again")
        let samples = resumed.filter { $0.event == "ticks" }.flatMap { ($0.data["samples"] as? [[String: Any]]) ?? [] }
        #expect(samples.map { $0["tick"] as? Int } == [2, 3])
        let ticksOfPushes = Self.pushes(resumed).compactMap { ($0.data["payload"] as? String)?.contains(#""timestamp":1"#) }
        #expect(ticksOfPushes == Array(repeating: false, count: 6), "none of tick 1's pushes again")
    }

    @Test(arguments: StoreEngine.available) func whatHappensWhileThePageIsOpenComesAsItIsStored(engine: StoreEngine) async throws {
        let running = try await Running.start(engine)
        let late = ActivityID("activity-late")
        let messages = try await follow(running.stream(), until: { messages in
            Self.pushes(messages).contains { $0.data["targetID"] as? String == late.rawValue }
                && messages.contains { $0.event == "ticks" && (($0.data["samples"] as? [[String: Any]]) ?? []).contains { $0["tick"] as? Int == 3 } }
                && messages.contains { ($0.data["cards"] as? [String: [Any]])?["hero:egghead"]?.count == 1 }
        }, meanwhile: {
            try await running.tick()
            // The app registers a new activity for Bao's hero (a new phone, in Korean), then a push waits for a retry.
            try await running.store.registerLiveActivity(activityID: late, player: running.trio.players[1].id,
                                                         adventure: running.adventure.id, hero: "egghead", token: Tokens.make(50),
                                                         frequentUpdates: true, locale: "ko")
            try await running.store.playNextTick(of: running.adventure.id) { _ in [update(late, tick: 2, alert: true)] }
            let push = try #require(try await running.store.claimOutbox(limit: 1).first)
            try await running.store.recordDelivered(push, apnsID: "late")
            try await running.store.playNextTick(of: running.adventure.id) { _ in [update(late, tick: 3, alert: true)] }
            let retried = try #require(try await running.store.claimOutbox(limit: 1).first)
            try await running.store.reschedule(retried, at: Date().addingTimeInterval(3600), reason: "TooManyRequests")
        })
        let card = try #require(messages.first { $0.event == "card" })
        #expect(card.data["key"] as? String == "hero:egghead")
        #expect(card.data["language"] as? String == "ko")
        let cardAt = try #require(messages.firstIndex { $0.event == "card" })
        let lateAt = try #require(messages.firstIndex { $0.data["targetID"] as? String == late.rawValue })
        #expect(cardAt < lateAt, "the page learns the card's new language before the push")
        let waiting = try #require(messages.last { $0.event == "waiting" })
        let pending = try #require((waiting.data["cards"] as? [String: [[String: Any]]])?["hero:egghead"]?.first)
        #expect(pending["outcome"] as? String == "retrying: TooManyRequests")
        #expect(pending["tick"] as? Int == 3)
    }

    @Test(arguments: StoreEngine.available)
    func eachFollowersChannelHasACardInItsLanguageThatAppearsWhenTheChannelIsMadeAndShowsItGone(engine: StoreEngine) async throws {
        let running = try await Running.start(engine, followCode: FollowCode(typed: "FLWR-CDE2"))
        let store = running.store
        let adventure = try await store.adventure(running.adventure.id)
        let watchers = try await Watchers.make(4, in: store)
        // Before the page opens: two followers on the Vietnamese channel.
        let first = try await store.follow(.channel(adventure, player: watchers.players[0].id, language: "vi"), at: Date())
        guard case .create(let vi)? = first.channel else { Issue.record("\(String(describing: first.channel))"); return }
        try await store.channelCreated(vi, as: "dmk=", at: Date())
        try await store.follow(.channel(adventure, player: watchers.players[1].id, language: "vi"), at: Date())

        let korean = ChannelOf()
        let messages = try await follow(running.stream(), until: { messages in
            Self.pushes(messages).contains { $0.data["answer"] as? String == "gone" }
                && Self.pushes(messages).contains { $0.data["card"] as? String == "followers:en" }
        }, meanwhile: {
            // While it is open: a Korean follower, whose channel is made now, and one before iOS 18, in English.
            let following = try await store.follow(.channel(adventure, player: watchers.players[2].id, language: "ko"), at: Date())
            guard case .create(let ko)? = following.channel else { Issue.record("\(String(describing: following.channel))"); return }
            korean.set(ko.channel)
            try await store.channelCreated(ko, as: "a28=", at: Date())
            try await store.follow(.token(adventure, player: watchers.players[3].id, device: watchers.devices[3], language: "en"), at: Date())
            for start in try await store.claimOutbox(limit: 10) { try await store.recordDelivered(start, apnsID: "start") }
            try await store.registerLiveActivity(activityID: "follower-activity", player: watchers.players[3].id, adventure: adventure.id,
                                                 hero: nil, token: Tokens.make(90), frequentUpdates: false, locale: "en")
            // A broadcast to each channel and a push to the follower's activity: APNs no longer has the Korean channel.
            try await store.playNextTick(of: adventure.id) { _ in
                [broadcast(vi.channel, tick: 1), broadcast(ko.channel, tick: 1), update("follower-activity", tick: 1)]
            }
            for push in try await store.claimOutbox(limit: 10) {
                try await store.record(push.message.target == .followerChannel(ko.channel)
                                       ? .channelGone(status: 400, reason: "ChannelNotRegistered") : .delivered(apnsID: "ok"), for: push)
            }
        })
        let ko = try #require(korean.value)

        // The page opens with the Vietnamese channel's card: its language, its two followers, no hero.
        let cards = try #require(messages.first { $0.event == "adventure" }?.data["cards"] as? [[String: Any]])
        let viCard = try #require(cards.first { $0["key"] as? String == "channel:\(vi.channel)" })
        #expect(viCard["kind"] as? String == "followerChannel")
        #expect(viCard["language"] as? String == "vi")
        #expect(viCard["followers"] as? Int == 2)
        #expect(viCard["channelState"] as? String == "open")
        #expect(viCard["hero"] == nil)
        #expect(!cards.contains { $0["key"] as? String == "channel:\(ko)" })
        // The Korean channel's card comes on the stream, before its broadcast.
        let koCardAt = try #require(messages.firstIndex { $0.event == "card" && $0.data["key"] as? String == "channel:\(ko)" })
        #expect(messages[koCardAt].data["language"] as? String == "ko")
        #expect(messages[koCardAt].data["followers"] as? Int == 1)
        let koPushAt = try #require(messages.firstIndex { $0.event == "push" && $0.data["card"] as? String == "channel:\(ko)" })
        #expect(koCardAt < koPushAt)
        // The per-token follower's card: their language's, one for all of them.
        let tokenCard = try #require(messages.first { $0.event == "card" && $0.data["key"] as? String == "followers:en" })
        #expect(tokenCard.data["kind"] as? String == "tokenFollowers")
        #expect(tokenCard.data["followers"] as? Int == 1)

        // Each broadcast on its channel's card, the one APNs no longer had as gone; the members' cards get none of them.
        let pushes = Self.pushes(messages)
        #expect(pushes.map { $0.data["card"] as? String } == ["channel:\(vi.channel)", "channel:\(ko)", "followers:en"])
        #expect(pushes.map { $0.data["answer"] as? String } == ["delivered", "gone", "delivered"])
        #expect(pushes[1].data["reason"] as? String == "ChannelNotRegistered")
        #expect(pushes.allSatisfy { $0.data["targetKind"] as? String != "liveActivity" || $0.data["targetID"] as? String == "follower-activity" })
    }

    @Test func aStreamEndsWhenItsLinkExpires() async throws {
        let running = try await Running.start(.sqlite)
        let messages = try await follow(running.stream(expiresAt: Int(Date().timeIntervalSince1970) - 1)) {
            $0.contains { $0.event == "expired" }
        }
        #expect(messages.map(\.event) == ["adventure", "ticks", "expired"])
    }

    @Test func noTimelineIsDrawnForAnAdventureThatBeganWithOtherContent() async throws {
        let running = try await Running.start(.sqlite, contentVersion: "older-content")
        try await running.tick()
        let messages = try await follow(running.stream()) { Self.pushes($0).count == 3 }
        #expect((messages.first?.data["timelineUnavailable"] as? String)?.contains("older-content") == true)
        #expect(!messages.contains { $0.event == "ticks" })
    }
}

/// A value set inside a test's `meanwhile` and read after it.
final class ChannelOf: @unchecked Sendable {
    private let lock = NSLock()
    private var channel: FollowerChannelID?

    func set(_ value: FollowerChannelID) { lock.withLock { channel = value } }

    var value: FollowerChannelID? { lock.withLock { channel } }
}
