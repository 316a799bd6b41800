import APNs
import APNsCurl
import APNsSimulator
import Catalog
import Foundation
import Game
import Replay
import Store
import Testing

@Suite struct PushReplayTests {
    static let bundleID = "com.example.apple-samplecode.Emoji-Rangers"

    func aps(_ payload: Data) throws -> [String: Any] {
        let body = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
        return try #require(body["aps"] as? [String: Any])
    }

    @Test func oneHerosPushesReachTheSimulatorInOrderWithStrictlyIncreasingTimestamps() async throws {
        let (_, store, id) = try await ReplayFixture.recordedAdventure()
        let saved = try SavedSession(try await store.record(of: id), content: try ContentSnapshot(of: ReplayFixture.loaded))
        let activity = try #require(saved.activities.first { $0.hero == "egghead" })
        let serverPushes = try saved.pushes.decoded().filter { $0.targetID == activity.activityID.rawValue }
        #expect(serverPushes.count > 3)

        let speed = 2000.0
        let replay = try PushReplay(saved, content: ReplayFixture.content, hero: "egghead", speed: speed,
                                    startingAt: Date(), withStart: true, policy: .standard)
        // The same decisions the server made for that activity, after one push-to-start.
        #expect(replay.pushes.count == serverPushes.count + 1)
        #expect(replay.pushes.dropFirst().map(\.priority) == serverPushes.map(\.priority))
        #expect(replay.pushes.dropFirst().map(\.payload.alert) == serverPushes.map(\.alert))

        let simulator = try await APNsSimulator.start()
        let key = APNsSigningKey.generate(keyID: "KEY1234567", teamID: "TEAM123456").key
        try simulator.registerProviderKey(key)
        let transport = try CurlHTTP2Transport(configuration: CurlTransportConfiguration(caFile: simulator.certificateFile))
        let client = APNsClient(environment: .custom(simulator.baseURL), key: key, transport: transport)
        let token = String(repeating: "ab", count: 32), startToken = String(repeating: "cd", count: 32)

        let began = ContinuousClock.now
        var progress: [Int] = []
        let sent = try await replay.send(through: client, token: token, pushToStartToken: startToken,
                                         bundleID: Self.bundleID) { count, _, _ in progress.append(count) }
        let elapsed = ContinuousClock.now - began
        await client.shutdown()
        let accepted = simulator.accepted()
        #expect(simulator.rejected().isEmpty, "\(simulator.rejected().map { String(decoding: $0.payload, as: UTF8.self) })")
        try await simulator.shutdown()

        #expect(sent == replay.pushes.count)
        #expect(progress == Array(1...sent))
        #expect(accepted.count == sent)
        #expect(accepted.map(\.deviceToken) == [startToken] + Array(repeating: token, count: sent - 1))
        let bodies = try accepted.map { try aps($0.payload) }
        #expect(bodies.map { $0["event"] as? String } == ["start"] + replay.pushes.dropFirst().map(\.payload.event.name))
        #expect(bodies.last?["event"] as? String == "end")
        let timestamps = bodies.compactMap { $0["timestamp"] as? Int }
        #expect(timestamps.count == sent)
        #expect(zip(timestamps, timestamps.dropFirst()).allSatisfy { $0 < $1 }, "\(timestamps)")
        // Fresh: stamped now, not when the adventure was played.
        let now = Int(Date().timeIntervalSince1970)
        #expect(abs(timestamps[0] - now) < 60)
        for body in bodies {
            let timestamp = try #require(body["timestamp"] as? Int)
            if let stale = body["stale-date"] as? Int { #expect(stale > timestamp) }
            if let dismissal = body["dismissal-date"] as? Int { #expect(dismissal > timestamp) }
        }
        // Compressed by the speed factor: the last push goes out when the adventure's
        // length divided by the speed has passed, not sooner.
        let compressed = Double(saved.lastTick * saved.setup.tickInterval) / speed
        #expect(elapsed >= .milliseconds(Int64(compressed * 1000) - 50))
        #expect(elapsed < .seconds(compressed + 20))
    }

    @Test func anUnknownHeroOrSpeedIsRefused() async throws {
        let (_, store, id) = try await ReplayFixture.recordedAdventure()
        let saved = try SavedSession(try await store.record(of: id), content: try ContentSnapshot(of: ReplayFixture.loaded))
        #expect(throws: PushReplayError.self) {
            try PushReplay(saved, content: ReplayFixture.content, hero: "cake", speed: 20, startingAt: Date(), withStart: false, policy: .standard)
        }
        #expect(throws: PushReplayError.self) {
            try PushReplay(saved, content: ReplayFixture.content, hero: nil, speed: 0, startingAt: Date(), withStart: false, policy: .standard)
        }
    }
}
