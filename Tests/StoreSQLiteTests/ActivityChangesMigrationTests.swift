import Foundation
import Store
@testable import StoreSQLite
import StoreTestSupport
import Testing
import Vocabulary

/// v17 counts changes to an adventure's reachable activities from the migration
/// on. Activities registered before it are read as they are, at a count of none,
/// and a change after it moves the count (`expectActivityChangesCountedFromNone`).
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
        try await expectActivityChangesCountedFromNone(in: try scratch.open(), trio: trio, adventure: adventure,
                                                       activities: activities)
    }
}
