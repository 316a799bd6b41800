import Foundation
import Store
@testable import StoreSQLite
import StoreTestSupport
import Testing
import Vocabulary

/// v17 counts changes to an adventure's reachable activities from the migration
/// on. Activities registered before it are read as they are, at a count of none,
/// and a change after it moves the count.
@Suite struct ActivityChangesMigrationTests {
    @Test func v17CountsChangesFromActivitiesStoredBefore() async throws {
        let scratch = try ScratchDatabase()
        let (trio, adventure, activities): (Trio, AdventureID, [ActivityID])
        do {
            let store = try scratch.open(upTo: "v16-chained-ticks")
            trio = try await Trio.make(in: store)
            adventure = try await trio.startAdventure().id
            activities = try await trio.registerActivities(for: adventure)
        }
        let store = try scratch.open()
        let before = try #require(try await store.dueAdventures(by: 4_000).first)
        #expect(before.activityChanges == 0)
        #expect(before.activities?.members.map(\.recipient.activityID) == activities)
        try await store.markActivity(activities[1], .ended, by: trio.players[1].id)
        let after = try #require(try await store.dueAdventures(by: 4_000).first)
        #expect(after.activityChanges == 1)
        #expect(after.activities?.members.map(\.recipient.activityID) == [activities[0], activities[2]])
    }
}
