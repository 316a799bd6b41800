import APNs
@testable import APNsCurl
import APNsSimulator
import Foundation
import Testing

/// Tasks that prefer the transport's executor send from its thread, and are
/// never stranded once the transport is gone.
@Suite struct CurlTransportExecutorTests {
    /// The kernel's name of the thread running the caller (what `top -H` shows),
    /// read in a synchronous function.
    static func threadName() -> String? {
        (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func sendsFromTasksPreferringTheTransportRunOnItsThread() async throws {
        let fixture = try await SimulatorFixture.start()
        let transport = try fixture.transport()
        let client = fixture.client(transport)
        #expect(client.preferredExecutor != nil)
        let threads = try await withThrowingTaskGroup(of: [String?].self) { group in
            for index in 0..<20 {
                group.addTask(executorPreference: client.preferredExecutor) {
                    let before = Self.threadName()
                    let delivery = try await client.send(.liveActivity(
                        deviceToken: SimulatorFixture.deviceToken(index), bundleID: SimulatorFixture.bundleID, priority: 5,
                        payload: SimulatorFixture.liveActivityPayload))
                    guard case .delivered = delivery.outcome else { return ["not delivered: \(delivery.outcome)"] }
                    return [before, Self.threadName()]
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(threads.count == 40)
        #expect(Set(threads) == ["apns-curl-multi"])
        #expect(fixture.simulator.acceptedCount == 20)
        await client.shutdown()
        try await fixture.shutdown()
    }

    @Test func aTaskPreferringAShutDownTransportStillRuns() async throws {
        let fixture = try await SimulatorFixture.start()
        let transport = try fixture.transport()
        let executor = transport.executor
        await transport.shutdown()
        let ran = await Task(executorPreference: executor) { () -> String in
            await Task.yield()
            return Self.threadName() ?? "unnamed"
        }.value
        #expect(ran != "apns-curl-multi")
        await #expect(throws: APNsTransportError.shutDown) {
            try await Task(executorPreference: executor) {
                try await transport.send(APNsHTTPRequest(url: "\(fixture.simulator.baseURL)/3/device/00", headers: [], body: Data()))
            }.value
        }
        try await fixture.shutdown()
    }

    @Test func withoutAPreferenceTheCallerStaysOnSwiftsThreads() async throws {
        let fixture = try await SimulatorFixture.start()
        let transport = try fixture.transport()
        let client = fixture.client(transport)
        _ = try await client.send(.liveActivity(deviceToken: SimulatorFixture.deviceToken(1), bundleID: SimulatorFixture.bundleID,
                                                priority: 5, payload: SimulatorFixture.liveActivityPayload))
        #expect(Self.threadName() != "apns-curl-multi")
        await client.shutdown()
        try await fixture.shutdown()
    }
}
