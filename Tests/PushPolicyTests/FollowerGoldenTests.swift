import Foundation
import Game
import PushPolicy
import Testing
import Vocabulary
import Wire

/// The exact bodies followers get, beside the members' in Golden/: the seed-42
/// adventure on Whispering Woods (see `GoldenPushTests.woods`) watched on an
/// English channel that keeps the most recent broadcast and a Korean one that
/// keeps nothing.
extension GoldenPushTests {
    static let english = FollowerChannelRecipient(channel: "channel-en", language: "en", storagePolicy: .mostRecentMessageStored)
    static let korean = FollowerChannelRecipient(channel: "channel-ko", language: "ko", storagePolicy: .noMessageStored)

    static func watchedWoods() throws -> PolicyRun {
        try PolicyRun(try PolicyFixtures.adventure(), followers: Followers(channels: [english, korean]))
    }

    static func broadcast(to channel: FollowerChannelRecipient, in tick: PolicyRun.Tick) -> PushDecision? {
        tick.decisions.first { $0.target == .followerChannel(id: channel.channel) }
    }

    @Test func aRoutineBroadcastCarriesThePartysState() throws {
        let run = try Self.watchedWoods()
        let first = try #require(run.ticks.first)
        let push = try #require(Self.broadcast(to: Self.english, in: first))

        #expect(push.priority == .low)
        #expect(push.player == nil && push.hero == nil)
        #expect(push.payload.timestamp.seconds == Self.startedAt + 10)
        // The stale date of an activity with frequent updates off: 3 × max(10 s tick, 5 s spacing), at least 30 s.
        #expect(push.payload.staleDate?.seconds == Self.startedAt + 10 + 30)
        #expect(push.expiration == Self.startedAt + 10 + 30)
        #expect(push.payload.alert == nil)
        // Tick 1: Power Panda took 11 of 300 (party 1,020 − 11 of 1,020 across the three).
        let maxHealth = run.startState.heroes.reduce(0) { $0 + $1.maxHealth }
        #expect(PolicyFixtures.isClose(push.payload.contentState.currentHealthLevel,
                                       PolicyFixtures.level(maxHealth - 11, maxHealth)))
        // Only the boss's fall counts toward relevance: 20 + 80 × 66/700, rounded.
        #expect(push.payload.relevanceScore == 28)

        try compare(push, toGolden: "follower-channel-update")
        // The same broadcast in Korean, on a channel that keeps nothing: now or never.
        let korean = try #require(Self.broadcast(to: Self.korean, in: first))
        #expect(korean.expiration == 0)
        #expect(korean.payload.contentState.latestEvent == push.payload.contentState.latestEvent)
        #expect(korean.payload.contentState.eventDescription != push.payload.contentState.eventDescription)
    }

    @Test func aMainBossDownAlertsFollowersInTheirWords() throws {
        let run = try Self.watchedWoods()
        let tick = try #require(run.tick { if case .bossDefeated(_, _, .main) = $0 { true } else { false } })
        #expect(tick.state.tick == 41)
        let push = try #require(Self.broadcast(to: Self.english, in: tick))

        #expect(push.priority == .high)
        #expect(push.reason == "bossDefeated (main): a main boss fell: the next one appears")
        #expect(push.payload.alert == Alert(
            title: .localized(key: "alert.bossDefeated.title", args: ["Goblin Chief"]),
            body: .localized(key: "alert.bossDefeated.followerBody", args: ["Old Treant"]),
            sound: "BossDefeated.caf"))
        try compare(push, toGolden: "follower-channel-boss-defeated")
    }

    @Test func theEndReachesFollowersWithItsDismissalDate() throws {
        let run = try Self.watchedWoods()
        let last = try #require(run.ticks.last)
        #expect(last.state.status == .victory)
        let push = try #require(Self.broadcast(to: Self.english, in: last))

        #expect(push.priority == .high)
        #expect(push.payload.isEnd)
        #expect(push.payload.timestamp.seconds == Self.startedAt + 1120)
        #expect(push.payload.dismissalDate?.seconds == Self.startedAt + 1120 + 900)
        #expect(push.expiration == Self.startedAt + 1120 + 4 * 3600)
        #expect(push.payload.alert == Alert(
            title: .localized(key: "alert.victory.title"),
            body: .localized(key: "alert.victory.followerBody", args: ["Old Treant"]),
            sound: "Victory.caf"))
        try compare(push, toGolden: "follower-channel-end")
        let korean = try #require(Self.broadcast(to: Self.korean, in: last))
        #expect(korean.expiration == 0)
        #expect(korean.payload.dismissalDate == push.payload.dismissalDate)
    }

    @Test func aFollowersPushToStartNamesNoHero() throws {
        let adventure = try PolicyFixtures.adventure()
        let policy = PolicyFixtures.policy(adventure)
        let push = try policy.pushForFollowerStart(state: adventure.start(),
                                                   recipient: FollowerStartRecipient(player: "watcher", language: "vi"))

        #expect(push.target == .pushToStart(player: "watcher"))
        #expect(push.hero == nil)
        #expect(push.priority == .high)
        #expect(push.expiration == Self.startedAt + 8 * 3600)
        #expect(push.payload.attributes?.heroID == "")
        #expect(push.payload.alert == Alert(
            title: .localized(key: "alert.following.title"),
            body: .localized(key: "alert.following.body", args: ["Whispering Woods", "Thorn Wolf"]),
            sound: "AdventureStart.caf"))
        #expect(push.payload.contentState.currentHealthLevel == 1)
        let body = try compare(push, toGolden: "follower-push-to-start")
        #expect(String(decoding: body, as: UTF8.self).contains(#""input-push-token":1"#))
    }
}
