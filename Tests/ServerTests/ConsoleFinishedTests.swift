import Foundation
import Game
import HTTPTypes
import Replay
import Server
import Store
import StoreTestSupport
import Testing
import Vocabulary

/// Finished adventures in the console: listed latest first, the outcome and the
/// pushes, the replay identical, the timeline, the session file as
/// `rangers replay` reads it; none of it for an adventure still running.
@Suite struct ConsoleFinishedTests {
    @Test(arguments: StoreEngine.available) func aFinishedAdventureReplaysAsIdenticalAndDownloads(engine: StoreEngine) async throws {
        try await DeliveryHarness.run(engine) { harness in
            let fixture = try await harness.api { try await Fixture.make($0) }
            let id = AdventureID(fixture.adventureID)
            try await harness.api { (api: API) async throws -> Void in
                var browser = ConsoleBrowser()
                #expect(try await browser.signIn(api, key: TestServer.gameMasterKey).status == 303)
                #expect(try await browser.get(api, "/console/adventures/\(id)/replay").status == 409, "still running")
                #expect(try await browser.get(api, "/console/adventures/\(id)/session").status == 409)
                #expect(try await browser.get(api, "/console/finished").text.contains(#"id="none-finished""#))
            }
            try await harness.withServices {
                try await eventually("the push-to-start pushes") { try await harness.isSettled(id, at: 0) }
                _ = try await harness.playToEnd(id)
            }
            let stored = try await harness.store.adventure(id)
            try await harness.api { (api: API) async throws -> Void in
                var browser = ConsoleBrowser()
                #expect(try await browser.signIn(api, key: TestServer.gameMasterKey).status == 303)
                let list = try await browser.get(api, "/console/finished")
                #expect(list.text.contains(#"<tr data-adventure="\#(id)">"#))
                #expect(list.text.contains(#"<td class="outcome">\#(stored.status.rawValue)</td>"#))

                let page = try await browser.get(api, "/console/adventures/\(id)")
                #expect(page.text.contains(#"<p id="outcome" data-outcome="\#(stored.status.rawValue)">"#))
                #expect(page.text.contains(#"<span id="duration">\#(stored.endedAt! - stored.startedAt) s</span>"#))
                #expect(!page.text.contains("http-equiv=\"refresh\""), "a finished adventure's page stays still")
                let sent = try await harness.store.outbox(of: id).filter { $0.state == .sent }
                #expect(page.text.contains("Pushes delivered: \(sent.count) ("))

                let replay = try await browser.get(api, "/console/adventures/\(id)/replay")
                #expect(replay.status == 200)
                #expect(replay.text.contains(#"<p id="verdict" data-verdict="identical">"#))

                let timeline = try await browser.get(api, "/console/adventures/\(id)/timeline")
                #expect(timeline.status == 200 && timeline.text.hasPrefix("<!DOCTYPE html>") && timeline.text.contains("<svg"))

                let file = try await browser.get(api, "/console/adventures/\(id)/session")
                #expect(file.status == 200)
                #expect(file.headers[.contentDisposition]?.hasPrefix("attachment; filename=\"adventure-") == true)
                let session = try SessionFile.decode(Data(file.text.utf8))
                #expect(session.adventureID == id)
                #expect(try Verifier.verify(session, with: try ReplayContent(snapshotOf: session)).isIdentical)

                #expect(try await browser.get(api, "/console/finished?afterID=x").status == 422)

                let delivery = try await browser.get(api, "/console/delivery")
                let answered = try await harness.store.pushLog(of: id).count
                #expect(delivery.status == 200 && delivery.text.contains(#"<strong id="answered">\#(answered)</strong>"#))
                #expect(delivery.text.contains(#"<tr data-status="200" data-reason="">"#))
                #expect(delivery.text.contains("of Apple's 10,000"))
            }
        }
    }
}
