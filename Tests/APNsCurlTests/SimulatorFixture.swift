import APNs
@testable import APNsCurl
import APNsSimulator
import Foundation

/// A simulator with a registered provider key, and clients that talk to it
/// through a real `CurlHTTP2Transport`.
struct SimulatorFixture {
    static let bundleID = "com.example.apple-samplecode.Emoji-Rangers"
    static let liveActivityPayload = Data(#"""
    {"aps":{"timestamp":1700000000,"event":"update","content-state":{"currentHealthLevel":0.5,"eventDescription":"Spouty attacks!"}}}
    """#.utf8)
    static let pushToTalkPayload = Data(#"{"aps":{},"activeSpeaker":"Power Panda"}"#.utf8)
    static let alertPayload = Data(#"{"aps":{"alert":{"title":"Boss defeated","body":"Well done"}}}"#.utf8)

    let simulator: APNsSimulator
    let key: APNsSigningKey

    static func start(_ configuration: APNsSimulatorConfiguration = APNsSimulatorConfiguration()) async throws -> SimulatorFixture {
        let simulator = try await APNsSimulator.start(configuration)
        let key = APNsSigningKey.generate(keyID: "KEY1234567", teamID: "TEAM123456").key
        try simulator.registerProviderKey(publicKeyPEM: key.publicKeyPEM, keyID: key.keyID, teamID: key.teamID)
        return SimulatorFixture(simulator: simulator, key: key)
    }

    func transport(_ configuration: CurlTransportConfiguration = CurlTransportConfiguration()) throws -> CurlHTTP2Transport {
        var configuration = configuration
        configuration.caFile = simulator.certificateFile
        return try CurlHTTP2Transport(configuration: configuration)
    }

    /// Retries without real waiting, so fault tests stay fast.
    func client(_ transport: CurlHTTP2Transport, maximumAttempts: Int = 4,
                now: @escaping @Sendable () -> Date = Date.init) -> APNsClient {
        APNsClient(environment: .custom(simulator.baseURL, management: simulator.managementBaseURL), key: key, transport: transport,
                   tokenMaximumAge: 50 * 60,
                   retry: APNsRetryPolicy(maximumAttempts: maximumAttempts), now: now, sleep: { _ in })
    }

    static func deviceToken(_ number: Int) -> String { String(format: "%064x", number) }

    static func liveActivity(_ number: Int) -> APNsRequest {
        .liveActivity(deviceToken: deviceToken(number), bundleID: bundleID, priority: 5, payload: liveActivityPayload)
    }

    func shutdown() async throws { try await simulator.shutdown() }
}

/// A clock a test moves by hand.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    init(_ start: Date) { current = start }

    var now: Date { lock.withLock { current } }

    func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }
}
