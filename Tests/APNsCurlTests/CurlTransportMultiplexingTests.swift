import APNs
@testable import APNsCurl
import APNsSimulator
import Foundation
import Testing

/// How requests share connections, hold to the in-flight limit and survive a
/// server that goes away, measured by the simulator on the other end.
@Suite struct CurlTransportMultiplexingTests {
    /// Sends `count` pushes at once; returns how many were delivered.
    static func sendConcurrently(_ count: Int, through client: APNsClient, firstNumber: Int = 0) async -> Int {
        await withTaskGroup(of: Bool.self) { group in
            for number in firstNumber..<(firstNumber + count) {
                group.addTask {
                    guard let delivery = try? await client.send(SimulatorFixture.liveActivity(number)),
                          case .delivered = delivery.outcome
                    else { return false }
                    return true
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
    }

    @Test func thousandConcurrentSendsAreMultiplexedOverOneConnection() async throws {
        let fixture = try await SimulatorFixture.start()
        let transport = try fixture.transport(CurlTransportConfiguration(
            maximumConnectionsPerHost: 1, maximumConcurrentStreamsPerConnection: 100))
        let client = fixture.client(transport)

        #expect(await Self.sendConcurrently(1000, through: client) == 1000)
        #expect(fixture.simulator.acceptedCount == 1000)
        #expect(fixture.simulator.connectionsAccepted == 1)
        #expect(transport.connectionsOpened == 1)
        // Streams really were concurrent, and never more than configured.
        #expect(fixture.simulator.maximumConcurrentStreamsSeen > 1)
        #expect(fixture.simulator.maximumConcurrentStreamsSeen <= 100)
        await client.shutdown()
        try await fixture.shutdown()
    }

    /// A delivered push is a body-less 200; libcurl 7.88 followed each with an
    /// RST_STREAM, which a server hardened against Rapid Reset counts against us.
    @Test func deliveredAndRefusedPushesEndTheirStreamsWithoutAReset() async throws {
        let fixture = try await SimulatorFixture.start()
        let transport = try fixture.transport(CurlTransportConfiguration(
            maximumConnectionsPerHost: 1, maximumConcurrentStreamsPerConnection: 100))
        let client = fixture.client(transport, maximumAttempts: 1)

        #expect(await Self.sendConcurrently(300, through: client) == 300)
        for number in 300..<400 {
            guard case .delivered = try await client.send(SimulatorFixture.liveActivity(number)).outcome else {
                Issue.record("push \(number) was not delivered")
                break
            }
        }
        try fixture.simulator.failNext(20, reason: .badTopic)
        #expect(await Self.sendConcurrently(20, through: client, firstNumber: 400) == 0)

        #expect(fixture.simulator.acceptedCount == 400)
        #expect(fixture.simulator.rejectedCount == 20)
        #expect(fixture.simulator.clientResets == 0, "resets by connection: \(fixture.simulator.clientResetsByConnection)")
        #expect(fixture.simulator.connectionsAccepted == 1)
        await client.shutdown()
        try await fixture.shutdown()
    }

    @Test func moreConnectionsOpenOnlyWhenStreamsRunOut() async throws {
        let fixture = try await SimulatorFixture.start()
        // Slow answers keep every stream busy, so a burst needs every connection.
        try fixture.simulator.delayResponses(by: .milliseconds(20))
        let transport = try fixture.transport(CurlTransportConfiguration(
            maximumConnectionsPerHost: 4, maximumConcurrentStreamsPerConnection: 10))
        let client = fixture.client(transport)

        #expect(await Self.sendConcurrently(400, through: client) == 400)
        #expect(fixture.simulator.connectionsAccepted > 1)
        #expect(fixture.simulator.connectionsAccepted <= 4)
        #expect(transport.connectionsOpened == fixture.simulator.connectionsAccepted)
        #expect(fixture.simulator.maximumConcurrentStreamsSeen <= 10)
        await client.shutdown()
        try await fixture.shutdown()
    }

    @Test func inFlightLimitHoldsStreamsBackOnTheWire() async throws {
        let fixture = try await SimulatorFixture.start()
        try fixture.simulator.delayResponses(by: .milliseconds(5))
        let transport = try fixture.transport(CurlTransportConfiguration(
            maximumConnectionsPerHost: 1, maximumConcurrentStreamsPerConnection: 100, maximumRequestsInFlight: 8))
        let client = fixture.client(transport)

        #expect(await Self.sendConcurrently(300, through: client) == 300)
        #expect(fixture.simulator.maximumConcurrentStreamsSeen <= 8)
        #expect(transport.peakRequestsInFlight == 8)
        #expect(transport.peakRequestsInLibcurl <= 8)
        #expect(transport.requestsInFlight == 0)
        await client.shutdown()
        try await fixture.shutdown()
    }

    @Test func cancellingAStreamKeepsTheConnection() async throws {
        let fixture = try await SimulatorFixture.start()
        let transport = try fixture.transport()
        let client = fixture.client(transport)
        guard case .delivered = try await client.send(SimulatorFixture.liveActivity(1)).outcome else {
            Issue.record("the first push was not delivered")
            return
        }

        try fixture.simulator.delayResponses(by: .seconds(30))
        let slow = Task { try await client.send(SimulatorFixture.liveActivity(2)) }
        #expect(try await CurlTransportFailureTests.eventually { transport.requestsInLibcurl == 1 })
        try await Task.sleep(for: .milliseconds(100))  // let the stream reach the server
        slow.cancel()
        let cancelled = ContinuousClock.now
        await #expect(throws: CancellationError.self) { try await slow.value }
        #expect(ContinuousClock.now - cancelled < .seconds(2))

        try fixture.simulator.delayResponses(by: .zero)
        guard case .delivered = try await client.send(SimulatorFixture.liveActivity(3)).outcome else {
            Issue.record("the push after the cancelled one was not delivered")
            return
        }
        #expect(fixture.simulator.connectionsAccepted == 1)
        // The cancelled stream's reset is the only one: delivered pushes end without.
        #expect(try await CurlTransportFailureTests.eventually { fixture.simulator.clientResets == 1 })
        #expect(fixture.simulator.clientResets == 1)
        await client.shutdown()
        try await fixture.shutdown()
    }

    @Test func goAwayLosesNoRequest() async throws {
        let fixture = try await SimulatorFixture.start()
        try fixture.simulator.delayResponses(by: .milliseconds(50))
        let client = fixture.client(try fixture.transport())
        async let delivered = Self.sendConcurrently(300, through: client)
        // Strike while the server holds many unanswered streams of the first connection.
        #expect(try await CurlTransportFailureTests.eventually {
            fixture.simulator.connectionsAccepted == 1 && fixture.simulator.maximumConcurrentStreamsSeen >= 50
        })
        await fixture.simulator.sendGoAway(reason: .shutdown)
        #expect(await delivered == 300)
        #expect(Set(fixture.simulator.accepted().map(\.deviceToken)).count == 300)
        #expect(fixture.simulator.connectionsAccepted >= 2)
        await client.shutdown()
        try await fixture.shutdown()
    }

    @Test func droppedConnectionLosesNoRequest() async throws {
        let fixture = try await SimulatorFixture.start()
        try fixture.simulator.delayResponses(by: .milliseconds(50))
        let client = fixture.client(try fixture.transport())
        async let delivered = Self.sendConcurrently(300, through: client)
        // Strike while the server holds many unanswered streams of the first connection.
        #expect(try await CurlTransportFailureTests.eventually {
            fixture.simulator.connectionsAccepted == 1 && fixture.simulator.maximumConcurrentStreamsSeen >= 50
        })
        await fixture.simulator.dropConnections()
        #expect(await delivered == 300)
        #expect(Set(fixture.simulator.accepted().map(\.deviceToken)).count == 300)
        #expect(fixture.simulator.connectionsAccepted >= 2)
        await client.shutdown()
        try await fixture.shutdown()
    }

    @Test func shutdownFinishesStreamsInFlight() async throws {
        let fixture = try await SimulatorFixture.start()
        try fixture.simulator.delayResponses(by: .milliseconds(200))
        let transport = try fixture.transport()
        let client = fixture.client(transport)
        async let delivered = Self.sendConcurrently(20, through: client)
        #expect(try await CurlTransportFailureTests.eventually { transport.requestsInFlight == 20 })
        await transport.shutdown()
        #expect(await delivered == 20)
        #expect(transport.requestsInFlight == 0)
        try await fixture.shutdown()
    }
}
