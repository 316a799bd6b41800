@testable import APNs
import Foundation

/// An in-memory transport: answers from a script, records what it was sent.
final class ScriptedTransport: APNsTransport, @unchecked Sendable {
    enum Answer {
        case http(Int, [String: String] = [:], String = "")
        case failure(APNsTransportError)
    }

    private let lock = NSLock()
    private var script: [Answer]
    private(set) var requests: [APNsHTTPRequest] = []

    /// Answers in order; the last one repeats.
    init(_ script: [Answer]) { self.script = script }

    func send(_ request: APNsHTTPRequest) async throws -> APNsHTTPResponse {
        let answer: Answer = lock.withLock {
            requests.append(request)
            return script.count > 1 ? script.removeFirst() : script[0]
        }
        switch answer {
        case .http(let status, let headers, let body):
            return APNsHTTPResponse(status: status, headers: headers, body: Data(body.utf8))
        case .failure(let error):
            throw error
        }
    }

    func shutdown() async {}

    var sentRequests: [APNsHTTPRequest] { lock.withLock { requests } }
}

/// A wall clock the test moves by hand.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    init(_ start: Date = Date(timeIntervalSince1970: 1_767_225_600)) { current = start }

    var now: Date { lock.withLock { current } }
    func advance(minutes: Double) { lock.withLock { current += minutes * 60 } }
}

/// Records the waits a client asks for instead of waiting.
final class RecordedSleeps: @unchecked Sendable {
    private let lock = NSLock()
    private var waits: [Duration] = []
    func sleep(_ duration: Duration) { lock.withLock { waits.append(duration) } }
    var all: [Duration] { lock.withLock { waits } }
}

enum Keys {
    static let signing = APNsSigningKey.generate(keyID: "KEY1234567", teamID: "TEAM123456").key
}

let token64 = String(repeating: "ab", count: 32)
