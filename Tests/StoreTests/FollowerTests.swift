import Foundation
import Game
import PushPolicy
import Store
import StoreTestSupport
import Testing
import Vocabulary

@Suite(.closesStores) struct FollowerTests {
    private func followable(_ engine: StoreEngine) async throws -> (any RangersStore, Trio, StoredAdventure, Watchers) {
        let store = try await engine.open()
        let trio = try await Trio.make(in: store)
        let adventure = try await trio.startAdventure(followCode: FollowCode(typed: "FLWR-CDE2"))
        return (store, trio, adventure, try await Watchers.make(4, in: store))
    }

    @Test(arguments: StoreEngine.available) func aFollowIsRefusedWithItsReasonAndNothingStored(engine: StoreEngine) async throws {
        let (store, trio, adventure, watchers) = try await followable(engine)
        let outsider = watchers.players[0].id
        await #expect(throws: StoreError.forbidden("that is not adventure \(adventure.id)'s follow code")) {
            try await store.follow(.channel(adventure, player: outsider, code: "AAAA-BBBB"), at: Date())
        }
        await #expect(throws: StoreError.forbidden("that is not adventure \(adventure.id)'s follow code")) {
            try await store.follow(.channel(adventure, player: outsider, code: "not a code"), at: Date())
        }
        await #expect(throws: StoreError.conflict(
            "you are in the party of adventure \(adventure.id): members get their own pushes, not a follower's")) {
            try await store.follow(.channel(adventure, player: trio.players[1].id), at: Date())
        }
        await #expect(throws: StoreError.notFound("adventure", id: "nope")) {
            try await store.follow(FollowRequest(adventure: "nope", player: outsider, code: "FLWR-CDE2", language: "en",
                                                 how: .channel, tokenFollowersPerAdventure: 1, channelLimit: 1,
                                                 storagePolicy: .mostRecentMessageStored), at: Date())
        }
        // Someone else's device, and a device without a valid push-to-start token.
        await #expect(throws: StoreError.forbidden("device \(watchers.devices[1]) belongs to another player")) {
            try await store.follow(.token(adventure, player: outsider, device: watchers.devices[1]), at: Date())
        }
        await #expect(throws: StoreError.notFound("device", id: "ghost")) {
            try await store.follow(.token(adventure, player: outsider, device: "ghost"), at: Date())
        }
        #expect(try await store.followers(of: adventure.id).isEmpty)
        #expect(try await store.followerChannels(of: adventure.id).isEmpty)
        #expect(try await store.outbox(of: adventure.id).isEmpty)

        // A private adventure takes no follower at all.
        let other = try await Trio.make(in: store)
        let secret = try await other.startAdventure()
        #expect(secret.followCode == nil)
        await #expect(throws: StoreError.forbidden("adventure \(secret.id) is private: only its party follows it")) {
            try await store.follow(.channel(secret, player: outsider, code: "FLWR-CDE2"), at: Date())
        }
        // Nor does one that has ended.
        try await store.endAdventureRequested(adventure.id)
        try await store.playNextTick(of: adventure.id)
        await #expect(throws: StoreError.self) {
            try await store.follow(.channel(adventure, player: outsider), at: Date())
        }
    }

    @Test(arguments: StoreEngine.available) func theFirstFollowerOfALanguageMakesItsChannelAndTheOthersGetIt(engine: StoreEngine) async throws {
        let (store, _, adventure, watchers) = try await followable(engine)
        let first = try await store.follow(.channel(adventure, player: watchers.players[0].id, language: "vi"), at: Date())
        #expect(first.follower.delivery == .channel)
        #expect(first.follower.language == "vi")
        guard case .create(let creation)? = first.channel else { Issue.record("\(String(describing: first.channel))"); return }
        #expect(creation.attempt == 1)
        #expect(creation.storagePolicy == .mostRecentMessageStored)
        // While it is being made, another follower of the language is told so.
        let meanwhile = try await store.follow(.channel(adventure, player: watchers.players[1].id, language: "vi"), at: Date())
        #expect(meanwhile.channel == .beingMade)
        #expect(try await store.knownChannels() == KnownChannels(apnsIDs: [], creationsInFlight: 1))

        let made = try await store.channelCreated(creation, as: "Y2hhbm5lbC12aQ==", at: Date())
        #expect(made.state == .open)
        let second = try await store.follow(.channel(adventure, player: watchers.players[1].id, language: "vi"), at: Date())
        #expect(second.channel == .open(creation.channel, "Y2hhbm5lbC12aQ=="))
        #expect(!first.wasFollowing && !meanwhile.wasFollowing && second.wasFollowing)
        // Following again changes nothing; another language gets a channel of its own.
        let repeated = try await store.follow(.channel(adventure, player: watchers.players[1].id, language: "vi"), at: Date())
        #expect(repeated.wasFollowing)
        let korean = try await store.follow(.channel(adventure, player: watchers.players[2].id, language: "ko"), at: Date())
        guard case .create(let other)? = korean.channel else { Issue.record("\(String(describing: korean.channel))"); return }
        #expect(other.channel != creation.channel)
        #expect(try await store.followers(of: adventure.id).map(\.player) == watchers.players.prefix(3).map(\.id))
        #expect(try await store.followerChannels(of: adventure.id).map(\.language) == ["ko", "vi"])
        #expect(try await store.knownChannels() == KnownChannels(apnsIDs: ["Y2hhbm5lbC12aQ=="], creationsInFlight: 1))
        // The channel is the ticker's to broadcast to.
        let inputs = try await store.tickInputs(of: adventure.id)
        #expect(inputs.followers.channels == [FollowerChannelRecipient(channel: creation.channel, language: "vi",
                                                                       storagePolicy: .mostRecentMessageStored)])
        #expect(inputs.recipients.isEmpty)
        let due = try await store.dueAdventures(by: 1_000_000)
        #expect(due.first?.followerChannels.map(\.recipient.channel) == [creation.channel])
    }

    @Test(arguments: StoreEngine.available) func aChannelNotMadeIsRetriedLaterAndALateAnswerToAnOldClaimIsRefused(engine: StoreEngine) async throws {
        let (store, _, adventure, watchers) = try await followable(engine)
        // Whole seconds: both engines keep instants to the millisecond at least.
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let following = try await store.follow(.channel(adventure, player: watchers.players[0].id), at: now)
        guard case .create(let creation)? = following.channel else { Issue.record("no claim"); return }
        try await store.channelNotCreated(creation, retryAt: now + 30, reason: "APNs: try later", at: now)
        // Not before its retry time …
        #expect(try await store.takeChannelCreations(limit: 10, channelLimit: 10, at: now + 10).isEmpty)
        let again = try await store.follow(.channel(adventure, player: watchers.players[1].id), at: now + 10)
        #expect(again.channel == .unavailable(retryAt: now + 30, limitReached: false))
        // … then claimed by whoever looks, as a new attempt.
        let retried = try await store.takeChannelCreations(limit: 10, channelLimit: 10, at: now + 31)
        #expect(retried.map(\.attempt) == [2])
        #expect(retried.map(\.channel) == [creation.channel])
        await #expect(throws: StoreError.conflict("followers' channel \(creation.channel) is no longer being made by this claim")) {
            try await store.channelCreated(creation, as: "b2xk", at: now + 32)
        }
        try await store.channelCreated(retried[0], as: "bmV3", at: now + 32)
        #expect(try await store.followerChannels(of: adventure.id).map(\.apnsID) == ["bmV3"])
    }

    /// A maker that is alive but stuck (its store write failed, say) holds its claim
    /// only until it runs out; then another follow or the keeper takes it over.
    @Test(arguments: StoreEngine.available) func aClaimThatRanOutIsTakenOverEvenFromALiveMaker(engine: StoreEngine) async throws {
        let (store, _, adventure, watchers) = try await followable(engine)
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        guard case .create(let stuck)? = try await store.follow(.channel(adventure, player: watchers.players[0].id), at: now).channel
        else { Issue.record("no claim"); return }
        #expect(try await store.follow(.channel(adventure, player: watchers.players[1].id), at: now + 60).channel == .beingMade)
        #expect(try await store.takeChannelCreations(limit: 10, channelLimit: 10, at: now + 60).isEmpty)
        let later = now + FollowerRules.claimTimeout + 1
        guard case .create(let taken)? = try await store.follow(.channel(adventure, player: watchers.players[1].id), at: later).channel
        else { Issue.record("the claim that ran out was not taken over"); return }
        #expect(taken.attempt == 2)
        await #expect(throws: StoreError.self) { try await store.channelCreated(stuck, as: "c3R1Y2s=", at: later) }
        try await store.channelCreated(taken, as: "dGFrZW4=", at: later)
        #expect(try await store.knownChannels() == KnownChannels(apnsIDs: ["dGFrZW4="], creationsInFlight: 0))
    }

    @Test(arguments: StoreEngine.available) func theAppsChannelLimitHoldsAndRoomIsUsedOnceAChannelIsDeleted(engine: StoreEngine) async throws {
        let (store, _, adventure, watchers) = try await followable(engine)
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        var request = FollowRequest.channel(adventure, player: watchers.players[0].id, language: "en", channelLimit: 1)
        guard case .create(let english)? = try await store.follow(request, at: now).channel else { Issue.record("no claim"); return }
        try await store.channelCreated(english, as: "ZW4=", at: now)
        request = .channel(adventure, player: watchers.players[1].id, language: "ko", channelLimit: 1)
        let refused = try await store.follow(request, at: now)
        #expect(refused.channel == .unavailable(retryAt: now + FollowerRules.channelLimitRetry, limitReached: true))
        #expect(try await store.followers(of: adventure.id).count == 2, "the follow is kept")
        #expect(try await store.takeChannelCreations(limit: 10, channelLimit: 1, at: now + 3600).isEmpty)

        // The adventure ends, its end broadcast is sent, its dismissal passes: the
        // channel is deleted and the room goes to the one waiting (of another adventure here).
        let second = try await Trio.make(in: store)
        let other = try await second.startAdventure(followCode: FollowCode(typed: "SECN-DX23"))
        let waiting = try await store.follow(.channel(other, player: watchers.players[2].id, channelLimit: 1), at: now)
        #expect(waiting.channel == .unavailable(retryAt: now + FollowerRules.channelLimitRetry, limitReached: true))
        try await store.endAdventureRequested(adventure.id)
        try await store.playNextTick(of: adventure.id) { _ in [broadcast(english.channel, end: true)] }
        let ended = try await store.adventure(adventure.id)
        let endedAt = try #require(ended.endedAt)
        #expect(try await store.channelsToDelete(endedBy: endedAt + 900, limit: 10, at: now).isEmpty, "its end is not sent yet")
        let end = try #require(try await store.claimOutbox(limit: 10).first)
        #expect(end.destination == .channel("ZW4="))
        try await store.recordDelivered(end, apnsID: "request-1")
        #expect(try await store.channelsToDelete(endedBy: endedAt - 1, limit: 10, at: now).isEmpty, "not dismissed yet")
        let done = try await store.channelsToDelete(endedBy: endedAt, limit: 10, at: now)
        #expect(done.map(\.id) == [english.channel])
        try await store.channelDeleted(english.channel, note: "deleted", at: now)
        #expect(try await store.knownChannels() == KnownChannels(apnsIDs: [], creationsInFlight: 0))
        // The Korean channel of the ended adventure is never made: closed on the way.
        #expect(try await store.followerChannels(of: adventure.id).map(\.state) == [.deleted, .deleted])
        let taken = try await store.takeChannelCreations(limit: 10, channelLimit: 1, at: now + 3600)
        #expect(taken.map(\.adventure) == [other.id])
    }

    @Test(arguments: StoreEngine.available) func aBroadcastGoesToTheChannelAPNsMadeAndAGoneChannelIsMadeAgain(engine: StoreEngine) async throws {
        let (store, trio, adventure, watchers) = try await followable(engine)
        let now = Date()
        guard case .create(let creation)? = try await store.follow(.channel(adventure, player: watchers.players[0].id), at: now).channel
        else { Issue.record("no claim"); return }
        // Decided while the channel is not open: it goes nowhere.
        try await store.playNextTick(of: adventure.id) { _ in [broadcast(creation.channel, tick: 1)] }
        #expect(try await store.claimOutbox(limit: 10).isEmpty)
        #expect(try await store.outbox(of: adventure.id).map(\.state) == [.dropped])

        try await store.channelCreated(creation, as: "Zmlyc3Q=", at: now)
        let activities = try await trio.registerActivities(for: adventure.id)
        var ledger = BudgetLedger()
        ledger.lastPushAt = 42
        let inputs = try await store.tickInputs(of: adventure.id)
        let game = try trio.game()
        let (state, events) = game.tick(inputs.adventure.state)
        _ = try await store.recordTicks([TickRecord(
            adventure: adventure.id, tick: 2, state: state, events: events, appliedCommandIDs: [],
            outbox: [update(activities[0], tick: 2), broadcast(creation.channel, tick: 2)], ledgers: [:],
            channelLedgers: [creation.channel: ledger])])[0].get()
        #expect(try await store.tickInputs(of: adventure.id).followerLedgers == [creation.channel: ledger])
        let claimed = try await store.claimOutbox(limit: 10)
        #expect(claimed.map(\.destination) == [.device(Tokens.make(0)), .channel("Zmlyc3Q=")])
        let toChannel = claimed[1]
        try await store.recordDelivered(claimed[0], apnsID: "a")

        // APNs no longer has it: the channel is wanted again (the adventure runs),
        // and a broadcast waiting for it goes nowhere.
        try await store.playNextTick(of: adventure.id) { _ in [broadcast(creation.channel, tick: 3, alert: true)] }
        try await store.record(.channelGone(status: 400, reason: "ChannelNotRegistered", apnsID: "r1"), for: toChannel)
        let channel = try #require(try await store.followerChannels(of: adventure.id).first)
        #expect(channel.state == .wanted)
        #expect(channel.note == "gone from APNs: ChannelNotRegistered")
        let states = try await store.outbox(of: adventure.id).map(\.state)
        #expect(states.suffix(2) == [.failed, .dropped])
        let log = try await store.pushLog(of: adventure.id)
        #expect(log.last?.destination == .channel("Zmlyc3Q="))
        #expect(log.last?.target == .followerChannel(creation.channel))
        #expect(log.last?.status == 400)
        // The answer was recorded on the wall clock, which may have passed `now + 1` by here.
        let remade = try await store.takeChannelCreations(limit: 10, channelLimit: 10, at: Date())
        #expect(remade.map(\.channel) == [creation.channel])
        #expect(remade.first?.attempt == 2)
    }

    @Test(arguments: StoreEngine.available) func aFollowerPerTokenIsWokenAndRegistersItsActivityUpToTheLimit(engine: StoreEngine) async throws {
        let (store, trio, adventure, watchers) = try await followable(engine)
        let (first, second) = (watchers.players[0].id, watchers.players[1].id)
        let following = try await store.follow(.token(adventure, player: first, device: watchers.devices[0], tokenFollowers: 1),
                                               at: Date())
        #expect(following.queuedPushToStart)
        #expect(following.follower.delivery == .token)
        #expect(following.follower.device == watchers.devices[0])
        let queued = try await store.outbox(of: adventure.id)
        #expect(queued.map(\.message.target) == [.pushToStart(watchers.devices[0])])
        // The limit of followers per token: a second is refused, the first may follow again.
        await #expect(throws: StoreError.self) {
            try await store.follow(.token(adventure, player: second, device: watchers.devices[1], tokenFollowers: 1), at: Date())
        }
        #expect(try await store.followers(of: adventure.id).map(\.player) == [first])
        _ = try await store.follow(.token(adventure, player: first, device: watchers.devices[0], tokenFollowers: 1), at: Date())

        // Its activity registers without a hero, as a follower's; a member's and a
        // non-follower's cannot.
        let activity = try await store.registerLiveActivity(activityID: "follower-1", player: first, adventure: adventure.id,
                                                            hero: nil, token: Tokens.make(90), frequentUpdates: true, locale: "ko")
        #expect(activity.hero == nil)
        await #expect(throws: StoreError.forbidden("an activity without a hero is a follower's; you do not follow adventure \(adventure.id)")) {
            try await store.registerLiveActivity(activityID: "stranger", player: second, adventure: adventure.id, hero: nil,
                                                 token: Tokens.make(91), frequentUpdates: true, locale: "en")
        }
        let members = try await trio.registerActivities(for: adventure.id)
        let inputs = try await store.tickInputs(of: adventure.id)
        #expect(inputs.recipients.map(\.activityID) == members)
        #expect(inputs.followers.activities == [FollowerActivityRecipient(activityID: "follower-1", player: first,
                                                                          frequentUpdates: true, language: "ko")])
        #expect(inputs.ledgers["follower-1"] == BudgetLedger())
        let due = try #require(try await store.dueAdventures(by: 1_000_000).first)
        #expect(due.activities?.members.map(\.recipient.activityID) == members)
        #expect(due.activities?.followers.map(\.recipient.activityID) == ["follower-1"])
        // Once its activity has registered, following again wakes nothing.
        let again = try await store.follow(.token(adventure, player: first, device: watchers.devices[0], tokenFollowers: 1),
                                           at: Date())
        #expect(!again.queuedPushToStart)
        #expect(try await store.outbox(of: adventure.id).count == 2)

        // A routine push to it writes no budget back; its budget reads back with
        // the time of that push's tick, as a member's does.
        let pushed = try await store.playNextTick(of: adventure.id, outbox: { _ in [update("follower-1")] })
        let resumed = try await store.tickInputs(of: adventure.id).ledgers["follower-1"]
        #expect(resumed?.lastPushAt == pushed.startedAt + pushed.lastTick * pushed.setup.tickInterval)
        #expect(resumed?.highPrioritySent == [])

        // Leaving ends the follower's activity and makes room for another.
        try await store.unfollow(adventure.id, player: first, at: Date())
        #expect(try await store.liveActivity("follower-1").status == .ended)
        #expect(try await store.tickInputs(of: adventure.id).followers.activities.isEmpty)
        _ = try await store.follow(.token(adventure, player: second, device: watchers.devices[1], tokenFollowers: 1), at: Date())
        await #expect(throws: StoreError.notFound("follower of adventure \(adventure.id)", id: first.rawValue)) {
            try await store.unfollow(adventure.id, player: first, at: Date())
        }
        // The replay's record knows only the members' activities.
        #expect(try await store.record(of: adventure.id).activities.map(\.activityID) == members)
    }
}
