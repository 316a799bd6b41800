import Catalog
import Foundation
import Game
import Replay
import Server
import Store
import StoreTestSupport
import Testing
import Vocabulary

/// An adventure the server played (API, ticker, dispatcher, store) replays as
/// identical, from the database and from an exported session file.
@Suite struct ServedAdventureReplayTests {
    @Test(arguments: StoreEngine.available) func anAdventurePlayedByTheServerReplaysAsIdentical(engine: StoreEngine) async throws {
        try await DeliveryHarness.run(engine) { harness in
            let fixture = try await harness.api { try await Fixture.make($0) }
            let id = AdventureID(fixture.adventureID)
            let chae = fixture.chae

            try await harness.withServices {
                try await eventually("the push-to-start pushes") { try await harness.isSettled(id, at: 0) }
                try await harness.playToEnd(id) { tick in
                    guard tick == 2 else { return }
                    try await harness.api { api in
                        let queued = try await api.send(.post, "/v1/adventures/\(fixture.adventureID)/potions", key: chae.key,
                                                        body: #"{"hero": "\#(chae.hero)"}"#)
                        try #require(queued.status == 202, "\(queued)")
                    }
                }
            }

            let content = harness.resources.content
            let record = try await harness.store.record(of: id)
            #expect(record.adventure.status != .running)
            #expect(record.commands.count == 1)
            let session = try SavedSession(record, content: try ContentSnapshot(of: content))
            let report = try Verifier.verify(session, with: ReplayContent(content))
            #expect(report.isIdentical, "\(String(describing: report.divergence))")
            #expect(report.ticks == record.adventure.lastTick)
            #expect(report.events == record.events.count)
            #expect(report.pushes == record.outboxCount)
            #expect(record.outbox?.count == record.outboxCount)
            // The push-to-start pushes of tick 0 are kept with the rest.
            #expect(try session.pushes.decoded().contains { $0.targetKind == .pushToStart && $0.tick == 0 })

            let file = try SessionFile.decode(try SessionFile.encode(session))
            #expect(try Verifier.verify(file, with: try ReplayContent(snapshotOf: file)).isIdentical)
        }
    }
}
