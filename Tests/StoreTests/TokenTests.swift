import Foundation
import Game
import Store
import StoreTestSupport
import Testing
import Vocabulary

@Suite(.closesStores) struct TokenTests {
    private func tokenHistory(_ database: TestDatabase, _ activity: ActivityID) async throws -> [(token: String, reason: String?)] {
        try await database.rows(
            sqlite: "SELECT token, invalidReason FROM activityToken WHERE activity = ? ORDER BY id",
            postgres: "SELECT token, invalid_reason FROM activity_token WHERE activity = $1 ORDER BY id", [activity.rawValue]
        ).map { ($0[0] ?? "", $0[1]) }
    }

    @Test(arguments: StoreEngine.available) func aRotatedTokenIsInvalidAndAPushQueuedBeforeTheRotationGoesToTheNewOne(engine: StoreEngine) async throws {
        let database = try await engine.database()
        let store = try await database.open()
        let trio = try await Trio.make(in: store)
        let adventure = try await trio.startAdventure()
        let activities = try await trio.registerActivities(for: adventure.id)
        try await store.playNextTick(of: adventure.id) { _ in activities.map { update($0, tick: 1) } }

        let fresh = Tokens.make(100)
        let rotated = try await store.rotateToken(activityID: activities[0], newToken: fresh, by: trio.players[0].id)
        #expect(rotated.token == fresh)
        let history = try await tokenHistory(database, activities[0])
        #expect(history.map(\.token) == [Tokens.make(0).hex, fresh.hex])
        #expect(history.map(\.reason) == ["rotated", nil])

        let claimed = try await store.claimOutbox(limit: 10)
        #expect(claimed.count == 3)
        let toFirst = try #require(claimed.first { $0.message.target == .liveActivity(activities[0]) })
        #expect(toFirst.token == fresh)
        #expect(!claimed.contains { $0.token == Tokens.make(0) })
        try await store.recordDelivered(toFirst, apnsID: "apns-1")
        #expect(try await store.pushLog(of: adventure.id).map(\.token) == [fresh])
    }

    @Test(arguments: StoreEngine.available) func rotatingToTheSameTokenOrRegisteringAgainChangesNothing(engine: StoreEngine) async throws {
        let database = try await engine.database()
        let store = try await database.open()
        let trio = try await Trio.make(in: store)
        let adventure = try await trio.startAdventure()
        let activities = try await trio.registerActivities(for: adventure.id)
        try await trio.registerActivities(for: adventure.id)
        try await store.rotateToken(activityID: activities[1], newToken: Tokens.make(1), by: trio.players[1].id)
        #expect(try await tokenHistory(database, activities[1]).count == 1)
        #expect(try await store.recipients(of: adventure.id).map(\.activityID) == activities)

        // The same registration with another token is a rotation.
        let again = try await store.registerLiveActivity(
            activityID: activities[1], player: trio.players[1].id, adventure: adventure.id, hero: "egghead",
            token: Tokens.make(51), frequentUpdates: false, locale: "en")
        #expect(again.token == Tokens.make(51))
        #expect(try await tokenHistory(database, activities[1]).map(\.reason) == ["rotated", nil])
    }

    @Test(arguments: StoreEngine.available) func onlyTheOwnerOfAHeroInTheAdventureRegistersOrRotates(engine: StoreEngine) async throws {
        let database = try await engine.database()
        let store = try await database.open()
        let trio = try await Trio.make(in: store)
        let adventure = try await trio.startAdventure()
        let activities = try await trio.registerActivities(for: adventure.id)
        await #expect(throws: StoreError.forbidden("hero 'egghead' is not yours in adventure \(adventure.id)")) {
            try await store.registerLiveActivity(activityID: "mine", player: trio.players[0].id, adventure: adventure.id,
                                                 hero: "egghead", token: Tokens.make(9), frequentUpdates: true, locale: "en")
        }
        await #expect(throws: StoreError.notFound("adventure", id: "nope")) {
            try await store.registerLiveActivity(activityID: "mine", player: trio.players[0].id, adventure: "nope",
                                                 hero: "power-panda", token: Tokens.make(9), frequentUpdates: true, locale: "en")
        }
        await #expect(throws: StoreError.forbidden("activity \(activities[0]) belongs to another player")) {
            try await store.rotateToken(activityID: activities[0], newToken: Tokens.make(9), by: trio.players[1].id)
        }
        await #expect(throws: StoreError.notFound("activity", id: "ghost")) {
            try await store.rotateToken(activityID: "ghost", newToken: Tokens.make(9), by: trio.players[1].id)
        }
        #expect(try await tokenHistory(database, activities[0]).count == 1)
        #expect(try await tokenHistory(database, "mine").isEmpty)
    }

    @Test(arguments: StoreEngine.available) func anActivityMarkedEndedReceivesNothingMore(engine: StoreEngine) async throws {
        let database = try await engine.database()
        let store = try await database.open()
        let trio = try await Trio.make(in: store)
        let adventure = try await trio.startAdventure()
        let activities = try await trio.registerActivities(for: adventure.id)
        try await store.playNextTick(of: adventure.id) { _ in [update(activities[2], tick: 1, alert: true)] }
        let marked = try await store.markActivity(activities[2], .dismissed, by: trio.players[2].id)
        #expect(marked.status == .dismissed)
        #expect(try await store.recipients(of: adventure.id).map(\.activityID) == Array(activities.prefix(2)))
        #expect(try await store.claimOutbox(limit: 10).isEmpty)
        let entry = try #require(try await store.outbox(of: adventure.id).first)
        #expect(entry.state == .dropped)
        #expect(entry.outcome == "the activity is dismissed")
    }

    @Test(arguments: StoreEngine.available) func aDevicesPushToStartTokenIsReplacedAndBelongsToOnePlayer(engine: StoreEngine) async throws {
        let database = try await engine.database()
        let store = try await database.open()
        let trio = try await Trio.make(in: store)
        let ana = trio.players[0].id
        try await store.registerPushToStartToken(deviceID: "phone-a", player: ana, token: Tokens.make(1), locale: "vi")
        let device = try await store.registerPushToStartToken(deviceID: "phone-a", player: ana, token: Tokens.make(2),
                                                              locale: "vi")
        #expect(device.pushToStartToken == Tokens.make(2))
        let stored = try await database.rows(sqlite: "SELECT pushToStartToken FROM device WHERE id = 'phone-a'",
                                             postgres: "SELECT push_to_start_token FROM device WHERE id = 'phone-a'")
        #expect(stored == [[Tokens.make(2).hex]])
        await #expect(throws: StoreError.forbidden("device phone-a belongs to another player")) {
            try await store.registerPushToStartToken(deviceID: "phone-a", player: trio.players[1].id,
                                                     token: Tokens.make(3), locale: "en")
        }
        await #expect(throws: StoreError.self) {
            try await store.registerPushToStartToken(deviceID: "phone-b", player: ana, token: Tokens.make(3),
                                                     locale: "en'; DROP TABLE device; --")
        }
        let devices = try await store.pushToStartDevices(of: trio.roster)
        #expect(devices == [PushToStartDevice(device: "phone-a",
                                              recipient: .init(player: ana, hero: "power-panda", language: "vi"))])
    }

    @Test(arguments: StoreEngine.available) func anEndedAdventureTakesNoNewActivityButItsActivitiesMayStillRotate(engine: StoreEngine) async throws {
        let database = try await engine.database()
        let store = try await database.open()
        let trio = try await Trio.make(in: store)
        let adventure = try await trio.startAdventure()
        let activities = try await trio.registerActivities(for: adventure.id)
        try await store.endAdventureRequested(adventure.id)
        try await store.playNextTick(of: adventure.id)
        await #expect(throws: StoreError.conflict("adventure \(adventure.id) has ended; no new activity can follow it")) {
            try await store.registerLiveActivity(activityID: "late", player: trio.players[0].id, adventure: adventure.id,
                                                 hero: "power-panda", token: Tokens.make(60), frequentUpdates: false,
                                                 locale: "en")
        }
        // The end push is still to come: the activity must stay reachable.
        try await store.rotateToken(activityID: activities[0], newToken: Tokens.make(61), by: trio.players[0].id)
        #expect(try await store.recipients(of: adventure.id).count == 3)
    }
}
