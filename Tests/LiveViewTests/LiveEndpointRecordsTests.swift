import Foundation
import LiveView
import Store
import StoreTestSupport
import Synchronization
import Testing
import Vocabulary

/// Beside APNs' answer, the page shows what the endpoint recorded when the server
/// runs with its simulator; against Apple's APNs (no records) it shows nothing more.
@Suite(.closesStores) struct LiveEndpointRecordsTests {
    func stream(_ running: LiveStreamTests.Running, endpoint: EndpointRecords?) -> LiveStream {
        var settings = LiveStream.Settings()
        settings.pollInterval = .milliseconds(20)
        return LiveStream(store: running.store, content: LiveStreamTests.content, adventure: running.adventure.id,
                          linkExpiresAt: Int(Date().timeIntervalSince1970) + 3600, now: Date.init, endpoint: endpoint,
                          settings: settings)
    }

    @Test func eachPushSaysWhatTheEndpointRecordedOfIt() async throws {
        let running = try await LiveStreamTests.Running.start(.sqlite)
        try await running.tick(firstAnswer: .delivered(apnsID: "accepted-once"))
        try await running.tick(firstAnswer: .rejected(status: 400, reason: "BadDeviceToken", apnsID: "refused"))
        let asked = Mutex<[[String]]>([])
        // The endpoint's records: "ok" (the other activities' pushes) reached two devices, "accepted-once" one.
        let records = EndpointRecords { ids in
            asked.withLock { $0.append(ids) }
            let held = ["ok": 2, "accepted-once": 1]
            return held.filter { ids.contains($0.key) }
        }
        let messages = try await LiveStreamTests().follow(stream(running, endpoint: records)) { LiveStreamTests.pushes($0).count == 6 }
        let pushes = LiveStreamTests.pushes(messages)
        let reached = pushes.map { (($0.data["endpoint"] as? [String: Any]).map { $0["devicesReached"] as? Int ?? -1 }) }
        let log = try await running.store.pushLog(of: running.adventure.id)
        #expect(reached == log.map { entry -> Int? in
            switch entry.apnsID {
            case "ok": 2
            case "accepted-once": 1
            default: -1 // Recorded nowhere: an endpoint object without a count.
            }
        })
        #expect(reached.contains(-1) && reached.contains(1))
        #expect(asked.withLock { $0.flatMap { $0 } }.sorted() == log.compactMap(\.apnsID).sorted(), "each push asked about once")

        let plain = try await LiveStreamTests().follow(stream(running, endpoint: nil)) { LiveStreamTests.pushes($0).count == 6 }
        #expect(LiveStreamTests.pushes(plain).allSatisfy { $0.data["endpoint"] == nil })
    }
}
