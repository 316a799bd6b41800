import Foundation
import Game
import PushPolicy
import Store
import StoreTestSupport
import Testing
import Vocabulary

@Suite(.closesStores) struct OutboxTests {
    /// A running adventure of three with their activities registered.
    private func running(_ engine: StoreEngine) async throws -> (any RangersStore, Trio, StoredAdventure, [ActivityID]) {
        try await engine.runningAdventure()
    }

    private func states(_ store: any RangersStore, _ adventure: AdventureID) async throws -> [String] {
        try await store.outbox(of: adventure).map { "\($0.message.reason)@\($0.tick ?? 0):\($0.state.rawValue)" }
    }

    @Test(arguments: StoreEngine.available) func aRoutineUpdateIsSupersededByANewerOneButAnAlertAndAnEndAreNot(engine: StoreEngine) async throws {
        let (store, _, adventure, activities) = try await running(engine)
        let a = activities[0]
        try await store.playNextTick(of: adventure.id) { _ in [update(a, tick: 1)] }
        try await store.playNextTick(of: adventure.id) { _ in [update(a, tick: 2, alert: true)] }
        try await store.playNextTick(of: adventure.id) { _ in [update(a, tick: 3)] }
        try await store.playNextTick(of: adventure.id) { _ in [update(a, tick: 4, end: true)] }
        try await store.playNextTick(of: adventure.id) { _ in [update(a, tick: 5), update(activities[1], tick: 5)] }
        // Queuing the newer push superseded the older routine ones already.
        #expect(try await states(store, adventure.id) == [
            "routine@1:superseded", "alert@2:pending", "routine@3:superseded", "routine@4:pending",
            "routine@5:pending", "routine@5:pending",
        ])

        let claimed = try await store.claimOutbox(limit: 10)
        #expect(claimed.map { "\($0.message.target.id)@\($0.tick!)" } == ["\(a)@2", "\(a)@4", "\(a)@5", "\(activities[1])@5"])
        #expect(try await states(store, adventure.id) == [
            "routine@1:superseded", "alert@2:sending", "routine@3:superseded", "routine@4:sending",
            "routine@5:sending", "routine@5:sending",
        ])
        let superseded = try await store.outbox(of: adventure.id).first { $0.state == .superseded }
        #expect(superseded?.outcome == "a newer update for this activity was queued")
    }

    @Test(arguments: StoreEngine.available) func anOlderRetryIsSupersededByANewerPushAlreadySent(engine: StoreEngine) async throws {
        let (store, _, adventure, activities) = try await running(engine)
        try await store.playNextTick(of: adventure.id) { _ in [update(activities[0], tick: 1)] }
        let first = try #require(try await store.claimOutbox(limit: 1).first)
        try await store.reschedule(first, at: Date().addingTimeInterval(-1), reason: "503 ServiceUnavailable")
        try await store.playNextTick(of: adventure.id) { _ in [update(activities[0], tick: 2)] }
        let claimed = try await store.claimOutbox(limit: 10)
        #expect(claimed.map(\.tick) == [2])
        #expect(try await states(store, adventure.id) == ["routine@1:superseded", "routine@2:sending"])
    }

    @Test(arguments: StoreEngine.available) func anOlderRetryIsSupersededByANewerPushClaimedWhileItWasOut(engine: StoreEngine) async throws {
        let (store, _, adventure, activities) = try await running(engine)
        try await store.playNextTick(of: adventure.id) { _ in [update(activities[0], tick: 1)] }
        let first = try #require(try await store.claimOutbox(limit: 1).first)
        // Queued while the first is being sent, so queuing it could not supersede that one.
        try await store.playNextTick(of: adventure.id) { _ in [update(activities[0], tick: 2)] }
        #expect(try await store.claimOutbox(limit: 10).map(\.tick) == [2])
        try await store.reschedule(first, at: Date().addingTimeInterval(-1), reason: "503 ServiceUnavailable")
        #expect(try await store.claimOutbox(limit: 10).isEmpty)
        #expect(try await states(store, adventure.id) == ["routine@1:superseded", "routine@2:sending"])
    }

    /// An older update answered "try later" after a newer one was queued for its
    /// activity is superseded when the answer is recorded: it never waits beside
    /// the newer one (the live page would show two pushes pending for one phone).
    /// An alert answered so keeps waiting: nothing newer replaces it.
    @Test(arguments: StoreEngine.available) func anOlderPushAnsweredTryLaterAfterANewerOneWasQueuedIsSupersededAtOnce(engine: StoreEngine) async throws {
        let (store, _, adventure, activities) = try await running(engine)
        try await store.playNextTick(of: adventure.id) { _ in [update(activities[0], tick: 1), update(activities[1], tick: 1, alert: true)] }
        let out = try await store.claimOutbox(limit: 10)
        try await store.playNextTick(of: adventure.id) { _ in [update(activities[0], tick: 2), update(activities[1], tick: 2)] }
        for push in out { try await store.reschedule(push, at: Date().addingTimeInterval(3600), reason: "503 ServiceUnavailable") }
        #expect(try await states(store, adventure.id) == ["routine@1:superseded", "alert@1:pending", "routine@2:pending", "routine@2:pending"])
        let page = try await store.pushLog(of: adventure.id, after: .start, limit: 10)
        #expect(page.waitingForRetry.map { "\($0.message.target.id)@\($0.tick ?? 0)" } == ["\(activities[1])@1"])

        // Newer and being sent when the older's answer comes: the same.
        let newer = try await store.claimOutbox(limit: 10)
        #expect(newer.map(\.tick) == [2, 2])
        try await store.playNextTick(of: adventure.id) { _ in [update(activities[0], tick: 3)] }
        let third = try #require(try await store.claimOutbox(limit: 1).first)
        try await store.reschedule(newer[0], at: Date().addingTimeInterval(3600), reason: "503 ServiceUnavailable")
        try await store.recordDelivered(third, apnsID: "ok")
        #expect(try await store.outbox(of: adventure.id).filter { $0.tick == 2 && $0.message.target == .liveActivity(activities[0]) }
            .map(\.state) == [.superseded])
    }

    @Test(arguments: StoreEngine.available) func aTokenAPNsRejectsIsInvalidatedAndNeverTargetedAgain(engine: StoreEngine) async throws {
        let (store, trio, adventure, activities) = try await running(engine)
        try await store.playNextTick(of: adventure.id) { _ in activities.map { update($0, tick: 1, alert: true) } }
        try await store.playNextTick(of: adventure.id) { _ in activities.map { update($0, tick: 2, alert: true) } }

        let claimed = try await store.claimOutbox(limit: 1)
        let doomed = try #require(claimed.first)
        #expect(doomed.message.target == .liveActivity(activities[0]))
        try await store.recordTokenInvalid(doomed, status: 410, reason: "Unregistered", since: Date())

        #expect(try await store.liveActivity(activities[0]).token == nil)
        #expect(try await store.recipients(of: adventure.id).map(\.activityID) == Array(activities.dropFirst()))
        let rest = try await store.claimOutbox(limit: 10)
        #expect(rest.count == 4)
        #expect(!rest.contains { $0.token == doomed.token || $0.message.target == .liveActivity(activities[0]) })
        let toFirst = try await store.outbox(of: adventure.id).filter { $0.message.target == .liveActivity(activities[0]) }
        #expect(toFirst.map(\.state) == [.failed, .dropped])
        #expect(toFirst.map(\.outcome) == ["token no longer valid: Unregistered", "its token was found invalid: Unregistered"])
        let log = try await store.pushLog(of: adventure.id)
        #expect(log.map(\.status) == [410])
        #expect(log.map(\.reason) == ["Unregistered"])

        // A push queued later for that activity is dropped, not sent.
        try await store.playNextTick(of: adventure.id) { _ in [update(activities[0], tick: 3, alert: true)] }
        #expect(try await store.claimOutbox(limit: 10).isEmpty)
        // The app registering a new token revives the activity.
        try await store.rotateToken(activityID: activities[0], newToken: Tokens.make(77), by: trio.players[0].id)
        try await store.playNextTick(of: adventure.id) { _ in [update(activities[0], tick: 4, alert: true)] }
        #expect(try await store.claimOutbox(limit: 10).map(\.token) == [Tokens.make(77)])
    }

    @Test(arguments: StoreEngine.available) func answersAreRecordedBeforeTheClaimThatShareTheirWrite(engine: StoreEngine) async throws {
        let (store, _, adventure, activities) = try await running(engine)
        try await store.playNextTick(of: adventure.id) { _ in activities.map { update($0, tick: 1, alert: true) } }
        let sent = try await store.claimOutbox(limit: 2)
        try await store.playNextTick(of: adventure.id) { _ in activities.map { update($0, tick: 2, alert: true) } }

        let (refusals, claimed) = try await store.recordAndClaim([
            PushResult(sent[0], .tokenInvalid(status: 410, reason: "Unregistered", since: nil)),
            PushResult(sent[1], .delivered(apnsID: "a-1")),
        ], limit: 10)
        #expect(refusals == [nil, nil])
        // The dead token's later push is dropped, not claimed: the answer came first.
        #expect(claimed.map { "\($0.message.target.id)@\($0.tick!)" }
                    == ["\(activities[2])@1", "\(activities[1])@2", "\(activities[2])@2"])
        #expect(try await store.pushLog(of: adventure.id).map(\.status) == [410, 200])
        // An answer given twice is refused on its own; the claim still runs.
        let again = try await store.recordAndClaim([PushResult(sent[1], .delivered(apnsID: "a-1"))], limit: 10)
        #expect(again.refusals.count == 1 && again.refusals[0] != nil)
        #expect(again.claimed.isEmpty)
    }

    @Test(arguments: StoreEngine.available) func aRotatedAwayTokenFoundInvalidLeavesTheNewTokensPushesAlone(engine: StoreEngine) async throws {
        let (store, trio, adventure, activities) = try await running(engine)
        try await store.playNextTick(of: adventure.id) { _ in [update(activities[0], tick: 1, alert: true)] }
        let inFlight = try #require(try await store.claimOutbox(limit: 1).first)
        try await store.rotateToken(activityID: activities[0], newToken: Tokens.make(88), by: trio.players[0].id)
        try await store.playNextTick(of: adventure.id) { _ in [update(activities[0], tick: 2, alert: true)] }
        try await store.recordTokenInvalid(inFlight, status: 410, reason: "Unregistered", since: nil)
        #expect(try await store.claimOutbox(limit: 10).map(\.token) == [Tokens.make(88)])
    }

    @Test(arguments: StoreEngine.available) func aTokenRegisteredAgainAfterAPNsTimestampStaysValid(engine: StoreEngine) async throws {
        let (store, _, adventure, activities) = try await running(engine)
        try await store.playNextTick(of: adventure.id) { _ in [update(activities[0], tick: 1)] }
        let push = try #require(try await store.claimOutbox(limit: 1).first)
        try await store.recordTokenInvalid(push, status: 410, reason: "Unregistered", since: Date(timeIntervalSince1970: 0))
        #expect(try await store.liveActivity(activities[0]).token == Tokens.make(0))
    }

    @Test(arguments: StoreEngine.available) func aPushToStartTokenFoundInvalidIsDroppedFromTheDevice(engine: StoreEngine) async throws {
        let store = try await engine.open()
        let trio = try await Trio.make(in: store)
        try await store.registerPushToStartToken(deviceID: "phone-a", player: trio.players[0].id, token: Tokens.make(40), locale: "ko")
        let devices = try await store.pushToStartDevices(of: trio.roster)
        let start = devices.map { device in
            OutboxMessage(target: .pushToStart(device.device), pushType: .liveactivity, topic: "t", priority: .high,
                          expiration: 0, payload: Data("{}".utf8), reason: "adventure started", hasAlert: true, isEnd: false, supersedable: false)
        }
        let adventure = try await trio.startAdventure(outbox: start)
        let push = try #require(try await store.claimOutbox(limit: 10).first)
        #expect(push.token == Tokens.make(40))
        #expect(push.tick == 0 && push.adventure == adventure.id)
        try await store.recordTokenInvalid(push, status: 400, reason: "BadDeviceToken", since: nil)
        #expect(try await store.pushToStartRecipients(of: adventure.id).isEmpty)
        // The app registers a new token: the device can be started again.
        try await store.registerPushToStartToken(deviceID: "phone-a", player: trio.players[0].id, token: Tokens.make(41),
                                                 locale: "ko")
        #expect(try await store.pushToStartRecipients(of: adventure.id).map(\.device) == ["phone-a"])
    }

    /// A running adventure with its activities, played by a store that then stops
    /// as a crashed process would (`play` leaves pushes in flight); its database,
    /// to open again.
    private func playedByAStoppedProcess(
        _ engine: StoreEngine, _ play: (any RangersStore, StoredAdventure, [ActivityID]) async throws -> Void
    ) async throws -> (TestDatabase, AdventureID) {
        let database = try await engine.database()
        let store = try await database.open()
        let trio = try await Trio.make(in: store)
        let adventure = try await trio.startAdventure()
        try await play(store, adventure, try await trio.registerActivities(for: adventure.id))
        await database.stop(store)
        return (database, adventure.id)
    }

    @Test(arguments: StoreEngine.available) func sendsInterruptedByACrashAreSentAgain(engine: StoreEngine) async throws {
        let (database, adventure) = try await playedByAStoppedProcess(engine) { store, adventure, activities in
            try await store.playNextTick(of: adventure.id) { _ in activities.map { update($0, tick: 1) } }
            let claimed = try await store.claimOutbox(limit: 10)
            try #require(claimed.count == 3)
            try await store.recordDelivered(claimed[0], apnsID: "a")
            // The process stops with two pushes in flight.
        }
        let restarted = try await database.open()
        #expect(try await restarted.pendingOutboxCount() == 2)
        #expect(try await restarted.claimOutbox(limit: 10).isEmpty)
        // At start every `sending` row claimed by another store is a leftover.
        #expect(try await restarted.recoverInterruptedSends() == 2)
        let again = try await restarted.claimOutbox(limit: 10)
        #expect(again.count == 2)
        #expect(again.allSatisfy { $0.attempts == 2 })
        for push in again { try await restarted.recordDelivered(push, apnsID: "b") }
        #expect(try await restarted.pendingOutboxCount() == 0)
        #expect(try await restarted.pushLog(of: adventure).count == 3)
    }

    /// A push that was out when its process stopped, and whose activity got a
    /// newer update meanwhile, is superseded when it is claimed again: only the
    /// newer one goes (queuing could not supersede it while it was out).
    @Test(arguments: StoreEngine.available) func aSendInterruptedAfterANewerPushWasQueuedIsSupersededWhenClaimedAgain(
        engine: StoreEngine
    ) async throws {
        let (database, adventure) = try await playedByAStoppedProcess(engine) { store, adventure, activities in
            try await store.playNextTick(of: adventure.id) { _ in [update(activities[0], tick: 1)] }
            try #require(try await store.claimOutbox(limit: 10).count == 1)
            try await store.playNextTick(of: adventure.id) { _ in [update(activities[0], tick: 2)] }
        }
        let restarted = try await database.open()
        #expect(try await restarted.recoverInterruptedSends() == 1)
        #expect(try await restarted.claimOutbox(limit: 10).map(\.tick) == [2])
        #expect(try await states(restarted, adventure) == ["routine@1:superseded", "routine@2:sending"])
    }

    @Test(arguments: StoreEngine.available) func aRetryWaitsItsTurnAndAnAnswerIsRecordedOnce(engine: StoreEngine) async throws {
        let (store, _, adventure, activities) = try await running(engine)
        try await store.playNextTick(of: adventure.id) { _ in [update(activities[1], tick: 1, alert: true)] }
        let now = Date()
        let push = try #require(try await store.claimOutbox(limit: 5, now: now).first)
        try await store.reschedule(push, at: now.addingTimeInterval(30), reason: "429 TooManyRequests")
        #expect(try await store.claimOutbox(limit: 5, now: now.addingTimeInterval(29)).isEmpty)
        #expect(try await store.nextOutboxAttemptAt() != nil)
        let retried = try #require(try await store.claimOutbox(limit: 5, now: now.addingTimeInterval(31)).first)
        #expect(retried.id == push.id && retried.attempts == 2)
        try await store.recordRejected(retried, status: 400, reason: "PayloadTooLarge")
        await #expect(throws: StoreError.self) { try await store.recordDelivered(retried, apnsID: "x") }
        await #expect(throws: StoreError.self) { try await store.reschedule(retried, at: now, reason: "again") }
        #expect(try await store.outbox(of: adventure.id).map(\.state) == [.failed])
        #expect(try await store.pushLog(of: adventure.id).map(\.status) == [400])
    }

    @Test(arguments: StoreEngine.available) func aPushPastItsExpirationIsDropped(engine: StoreEngine) async throws {
        let (store, _, adventure, activities) = try await running(engine)
        let past = Int(Date().timeIntervalSince1970) - 1
        try await store.playNextTick(of: adventure.id) { _ in [update(activities[0], tick: 1, alert: true, expiration: past)] }
        #expect(try await store.claimOutbox(limit: 5, now: Date().addingTimeInterval(1)).isEmpty)
        #expect(try await store.outbox(of: adventure.id).map(\.outcome) == ["expired before it could be sent"])
    }

    /// A claim sends a push to the token its activity has when it is claimed, not
    /// when it was queued, and drops one to an activity that has ended since.
    @Test(arguments: StoreEngine.available) func aClaimReadsTheActivitysTokenAndStatusAtTheMomentOfTheClaim(
        engine: StoreEngine
    ) async throws {
        let (store, trio, adventure, activities) = try await running(engine)
        try await store.playNextTick(of: adventure.id) { _ in activities.map { update($0, tick: 1, alert: true) } }
        try await store.rotateToken(activityID: activities[0], newToken: Tokens.make(91), by: trio.players[0].id)
        try await store.markActivity(activities[1], .ended, by: trio.players[1].id)
        try await store.markActivity(activities[2], .dismissed, by: trio.players[2].id)

        #expect(try await store.claimOutbox(limit: 10).map(\.token) == [Tokens.make(91)])
        let outcomes = try await store.outbox(of: adventure.id).map { "\($0.message.target.id):\($0.state.rawValue):\($0.outcome ?? "")" }
        #expect(outcomes == [
            "\(activities[0]):sending:", "\(activities[1]):dropped:the activity is ended",
            "\(activities[2]):dropped:the activity is dismissed",
        ])
    }

    /// A claim of one push goes on past the pushes it drops until it has one.
    @Test(arguments: StoreEngine.available) func aClaimFillsItsLimitPastThePushesItDrops(engine: StoreEngine) async throws {
        let (store, trio, adventure, activities) = try await running(engine)
        try await store.playNextTick(of: adventure.id) { _ in activities.map { update($0, tick: 1, alert: true) } }
        try await store.markActivity(activities[0], .ended, by: trio.players[0].id)
        try await store.markActivity(activities[1], .ended, by: trio.players[1].id)

        #expect(try await store.claimOutbox(limit: 1).map(\.message.target) == [.liveActivity(activities[2])])
        #expect(try await store.claimOutbox(limit: 1).isEmpty)
        #expect(try await store.outbox(of: adventure.id).map(\.state) == [.dropped, .dropped, .sending])
    }
}
