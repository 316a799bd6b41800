import APNs
import APNsSimulator
import Foundation
import Game
import Server
import Services
import Store
import StoreTestSupport
import Testing
import Vocabulary

/// The ticker and the dispatcher together: an adventure started over the API runs
/// to its end, and what its players' phones would get is what the simulator, over
/// TLS and HTTP/2, received.
@Suite struct DeliveryTests {
    @Test(arguments: StoreEngine.available) func anAdventureRunsToItsEndAndEveryActivityHearsOfIt(engine: StoreEngine) async throws {
        try await DeliveryHarness.run(engine) { harness in
            let fixture = try await harness.api { try await Fixture.make($0) }
            let id = AdventureID(fixture.adventureID)
            let store = harness.store
            let bao = fixture.bao
            let chae = fixture.chae
            let potionTick = 4
            let rotationTick = 8
            let rotatedToken = token(50)
            let rotatedAt = WallClockMark()

            try await harness.withServices {
                try await eventually("the push-to-start pushes") { try await harness.isSettled(id, at: 0) }
                try await harness.playToEnd(id) { tick in
                    if tick == potionTick - 1 {
                        try await harness.api { api in
                            let queued = try await api.send(.post, "/v1/adventures/\(fixture.adventureID)/potions", key: bao.key,
                                                            body: #"{"hero": "\#(bao.hero)"}"#)
                            try #require(queued.status == 202, "\(queued)")
                        }
                    }
                    // The next valid request is answered 503; the dispatcher must send it again.
                    if tick == 5 { try harness.simulator.failNext(1, status: 503, reason: .serviceUnavailable) }
                    // Chae's app reports a new token: the old one must never hear from us again.
                    if tick == rotationTick {
                        try await harness.api { api in
                            let rotated = try await api.send(.put, "/v1/activities/\(chae.activityID)/token", key: chae.key,
                                                             body: #"{"pushToken": "\#(rotatedToken)"}"#)
                            try #require(rotated.status == 200, "\(rotated)")
                        }
                        rotatedAt.mark()
                    }
                }
            }

            // The potion was applied at the tick after it was queued, and stored with it.
            let potion = Command.usePotion(player: PlayerID(bao.id), hero: HeroID(bao.hero))
            #expect(try await store.commands(of: id) == [ScheduledCommand(tick: potionTick, command: potion)])
            let events = try await store.events(of: id)
            #expect(events.contains { entry in
                guard entry.tick == potionTick else { return false }
                switch entry.event {
                case .potionUsed(let player, _, _), .potionRejected(let player, _, _): return player == PlayerID(bao.id)
                default: return false
                }
            })

            // Replay: the same setup and commands played straight through log the same events.
            let stored = try await store.adventure(id)
            #expect(stored.status != .running)
            let adventure = try Adventure(setup: stored.setup, content: harness.resources.content.game)
            struct Logged: Equatable { var tick: Int, position: Int, event: GameEvent }
            var replayed: [Logged] = []
            let finalState = adventure.playToEnd(commands: [ScheduledCommand(tick: potionTick, command: potion)]) { state, tickEvents in
                replayed += tickEvents.enumerated().map { Logged(tick: state.tick, position: $0.offset, event: $0.element) }
            }
            #expect(events.map { Logged(tick: $0.tick, position: $0.position, event: $0.event) } == replayed)
            #expect(!replayed.isEmpty)
            #expect(stored.state == finalState)

            // Every push decided was sent; none was left behind or superseded.
            let outbox = try await store.outbox(of: id)
            #expect(!outbox.isEmpty)
            #expect(outbox.allSatisfy { $0.state == .sent }, "\(outbox.filter { $0.state != .sent }.map { "\($0.state) \($0.outcome ?? "")" })")

            let accepted = harness.simulator.accepted()
            for (index, member) in fixture.members.enumerated() {
                // A push-to-start to the device's token, asking for an update token.
                let starts = accepted.filter { $0.deviceToken == token(100 + index) }
                #expect(starts.count == 1)
                #expect(starts.first?.event == "start")
                #expect(starts.first?.priority == 10)
                #expect(starts.first?.topic == "\(TestServer.bundleID).push-type.liveactivity")

                // Then the activity's pushes, exactly as the policy decided them, in order:
                // Chae's to the first token until it was rotated, then to the new one.
                let received = accepted.filter { $0.deviceToken == token(index) || (member.id == chae.id && $0.deviceToken == rotatedToken) }
                if member.id == chae.id {
                    let rotation = try #require(rotatedAt.date)
                    #expect(received.filter { $0.deviceToken == token(index) }.allSatisfy { $0.receivedAt < rotation },
                            "the old token got a push after its rotation")
                    #expect(received.filter { $0.deviceToken == rotatedToken }.count >= 2, "the new token gets updates and the end")
                    #expect(received.last?.deviceToken == rotatedToken)
                }
                let decided = outbox.filter { $0.message.target == .liveActivity(ActivityID(member.activityID)) }
                #expect(received.map(\.payload) == decided.map(\.message.payload), "activity of \(member.hero)")
                #expect(received.map(\.priority) == decided.map(\.message.priority.rawValue))
                #expect(received.dropLast().allSatisfy { $0.event == "update" })
                #expect(received.last?.event == "end")
                #expect(received.last?.aps["dismissal-date"] is Int)
                let alerts = received.compactMap { $0.aps["alert"] as? [String: Any] }
                #expect(!alerts.isEmpty, "activity of \(member.hero) got no alert")
                #expect(alerts.allSatisfy { $0["sound"] is String }, "every alert has a sound")
                let timestamps = received.compactMap(\.timestamp)
                #expect(timestamps.count == received.count)
                #expect(zip(timestamps, timestamps.dropFirst()).allSatisfy { $0 < $1 }, "\(timestamps)")
            }
            #expect(Set(accepted.map(\.priority)) == [5, 10], "both priorities are used")

            // The 503 was answered once, and the same push then went through.
            let failed = harness.simulator.rejected().filter { $0.status == 503 }
            #expect(failed.count == 1)
            if let failure = failed.first {
                #expect(accepted.contains { $0.deviceToken == failure.deviceToken && $0.payload == failure.payload
                                            && $0.receivedAt >= failure.receivedAt })
                let log = try await store.pushLog(of: id)
                #expect(log.contains { $0.attempts == 2 && $0.status == 200 && $0.token?.hex == failure.deviceToken })
            }
        }
    }

    /// The ticker's and the dispatcher's figures reach `/metrics`.
    @Test(arguments: StoreEngine.available) func theTickerAndTheDispatcherReportTheirWorkAtMetrics(engine: StoreEngine) async throws {
        try await DeliveryHarness.run(engine) { harness in
            let fixture = try await harness.api { try await Fixture.make($0) }
            let id = AdventureID(fixture.adventureID)
            _ = try await harness.withServices {
                try await harness.playToEnd(id) { _ in }
            }
            let stored = try await harness.store.adventure(id)
            let sent = try await harness.store.outbox(of: id).count { $0.state == .sent }
            let metrics = try await harness.api { api in try await api.send(.get, "/metrics").text }
            func value(_ series: String) -> Double {
                metrics.split(separator: "\n").filter { $0.hasPrefix(series) }
                    .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }.reduce(0, +)
            }
            #expect(value("rangers_ticks_total") == Double(stored.lastTick))
            #expect(value("rangers_tick_lag_seconds_count") == Double(stored.lastTick))
            #expect(value("rangers_dispatcher_pushes_total{outcome=\"delivered\"") == Double(sent))
            #expect(sent > 0)
            #expect(metrics.contains("apns_pushes_total"), "the APNs client's own figures")
        }
    }

    @Test(arguments: StoreEngine.available) func aTokenAnsweredUnregisteredIsInvalidatedAfterOne410(engine: StoreEngine) async throws {
        try await DeliveryHarness.run(engine) { harness in
            let fixture = try await harness.api { try await Fixture.make($0) }
            let id = AdventureID(fixture.adventureID)
            let store = harness.store
            let chae = fixture.chae
            let chaeToken = token(2)

            _ = try await harness.withServices {
                try await harness.playToEnd(id) { tick in
                    if tick == 2 { harness.simulator.markUnregistered(deviceToken: chaeToken, since: harness.clock.now) }
                }
            }

            let refused = harness.simulator.rejected().filter { $0.deviceToken == chaeToken }
            try #require(refused.count == 1, "one 410, then nothing more to that token")
            #expect(refused[0].status == 410)
            let accepted = harness.simulator.accepted()
            let before = accepted.filter { $0.deviceToken == chaeToken }
            #expect(!before.isEmpty)
            #expect(before.allSatisfy { $0.receivedAt <= refused[0].receivedAt })

            let activity = try await store.liveActivity(ActivityID(chae.activityID))
            #expect(activity.token == nil, "the token is no longer valid")
            let log = try await store.pushLog(of: id)
            #expect(log.filter { $0.token?.hex == chaeToken && $0.status == 410 }.count == 1)
            // Chae's activity is no longer a recipient: its last push is the refused one.
            let outbox = try await store.outbox(of: id)
            let chaeRows = outbox.filter { $0.message.target == .liveActivity(ActivityID(chae.activityID)) }
            #expect(chaeRows.last?.state == .failed)
            #expect(chaeRows.dropLast().allSatisfy { $0.state == .sent })
            #expect(outbox.last.map { $0.tick ?? 0 } ?? 0 > chaeRows.last.map { $0.tick ?? 0 } ?? 0,
                    "the adventure went on after the 410")

            // The others heard the adventure to its end.
            for index in 0..<2 {
                #expect(accepted.last { $0.deviceToken == token(index) }?.event == "end")
            }
        }
    }

    @Test(arguments: StoreEngine.available) func pushesLeftSendingByAStoppedProcessAreSentAtStart(engine: StoreEngine) async throws {
        try await DeliveryHarness.run(engine) { harness in
            let fixture = try await harness.api { try await Fixture.make($0) }
            let id = AdventureID(fixture.adventureID)
            // Another process's dispatcher claimed the starts, then it stopped before sending.
            let stopped = try await harness.database.open()
            let claimed = try await stopped.claimOutbox(limit: 10, now: harness.clock.now)
            #expect(claimed.count == 3)
            await harness.database.stop(stopped)

            try await harness.withServices {
                try await eventually("the interrupted starts") { try await harness.isSettled(id, at: 0) }
            }
            let outbox = try await harness.store.outbox(of: id)
            #expect(outbox.count == 3)
            #expect(outbox.allSatisfy { $0.state == .sent })
            #expect(harness.simulator.accepted().filter { $0.event == "start" }.count == 3)
        }
    }

    @Test(arguments: StoreEngine.available) func aGracefulShutdownDrainsTheOutboxFirst(engine: StoreEngine) async throws {
        try await DeliveryHarness.run(engine) { harness in
            // Slow answers: the shutdown comes while the starts are still on the wire.
            try harness.simulator.delayResponses(by: .milliseconds(300))
            let fixture = try await harness.api { try await Fixture.make($0) }
            let id = AdventureID(fixture.adventureID)

            try await harness.withServices {
                try await eventually("the starts being sent") {
                    try await harness.store.outbox(of: id).contains { $0.state == .sending }
                }
            }
            #expect(try await harness.store.pendingOutboxCount() == 0)
            #expect(try await harness.store.outbox(of: id).allSatisfy { $0.state == .sent })
            #expect(harness.simulator.acceptedCount == 3)
        }
    }
}
