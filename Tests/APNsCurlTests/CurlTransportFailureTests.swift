import APNs
@testable import APNsCurl
import Foundation
import Testing

/// Failures and flow control that need no HTTP/2 server: a refused port, a port
/// that never answers, one that does not speak TLS.
@Suite struct CurlTransportFailureTests {
    static func push(to baseURL: String) -> APNsHTTPRequest {
        APNsHTTPRequest(url: "\(baseURL)/3/device/0123456789abcdef",
                        headers: [("apns-push-type", "alert"), ("authorization", "bearer not-a-real-token")],
                        body: Data(#"{"aps":{}}"#.utf8))
    }

    /// Polls until `condition` holds, for state another thread changes.
    static func eventually(within limit: Duration = .seconds(5), _ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test func closedPortIsCannotConnect() async throws {
        let closed = try LocalTCPServer(.refuse)
        let transport = try CurlHTTP2Transport()
        await #expect {
            try await transport.send(Self.push(to: closed.baseURL))
        } throws: { error in
            guard case .cannotConnect(let detail) = error as? APNsTransportError else { return false }
            return detail.contains("\(closed.port)")
        }
        await transport.shutdown()
    }

    @Test func serverThatDoesNotSpeakTLSIsATLSError() async throws {
        let plain = try LocalTCPServer(.reply(Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".utf8)))
        let transport = try CurlHTTP2Transport()
        await #expect {
            try await transport.send(Self.push(to: plain.baseURL))
        } throws: { error in
            guard case .tls = error as? APNsTransportError else { return false }
            return true
        }
        await transport.shutdown()
    }

    @Test func plainHTTPIsRefusedSoTheTokenNeverTravelsInTheClear() async throws {
        let transport = try CurlHTTP2Transport()
        await #expect {
            try await transport.send(Self.push(to: "http://127.0.0.1:9"))
        } throws: { error in
            guard case .cannotConnect(let detail) = error as? APNsTransportError else { return false }
            return detail.contains("https")
        }
        await transport.shutdown()
    }

    @Test func silentServerTimesOut() async throws {
        let silent = try LocalTCPServer(.silent)
        let transport = try CurlHTTP2Transport(configuration: CurlTransportConfiguration(
            connectTimeout: .milliseconds(300), requestTimeout: .milliseconds(500)))
        let started = ContinuousClock.now
        await #expect(throws: APNsTransportError.timedOut) {
            try await transport.send(Self.push(to: silent.baseURL))
        }
        #expect(ContinuousClock.now - started < .seconds(3))
        await transport.shutdown()
    }

    @Test func cancellingASendWithdrawsItFromLibcurl() async throws {
        let silent = try LocalTCPServer(.silent)
        let transport = try CurlHTTP2Transport(configuration: CurlTransportConfiguration(requestTimeout: .seconds(60)))
        let request = Self.push(to: silent.baseURL)
        let sending = Task { try await transport.send(request) }
        #expect(try await Self.eventually { transport.requestsInLibcurl == 1 })

        let cancelled = ContinuousClock.now
        sending.cancel()
        await #expect(throws: CancellationError.self) { try await sending.value }
        #expect(ContinuousClock.now - cancelled < .seconds(2))
        #expect(try await Self.eventually { transport.requestsInLibcurl == 0 })
        #expect(transport.requestsInFlight == 0)
        await transport.shutdown()
    }

    @Test func sendFromAnAlreadyCancelledTaskSendsNothing() async throws {
        let silent = try LocalTCPServer(.silent)
        let transport = try CurlHTTP2Transport()
        let request = Self.push(to: silent.baseURL)
        let sending = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(request)
        }
        await #expect(throws: CancellationError.self) { try await sending.value }
        #expect(transport.peakRequestsInLibcurl == 0)
        await transport.shutdown()
    }

    @Test func sendersBeyondTheInFlightLimitWaitAndCanBeCancelledWhileWaiting() async throws {
        let silent = try LocalTCPServer(.silent)
        let limit = 3
        let transport = try CurlHTTP2Transport(configuration: CurlTransportConfiguration(
            maximumConnectionsPerHost: 2, maximumRequestsInFlight: limit, requestTimeout: .seconds(60)))
        let request = Self.push(to: silent.baseURL)
        let senders = (0..<12).map { _ in Task { try await transport.send(request) } }

        #expect(try await Self.eventually { transport.requestsInLibcurl == limit })
        // Give extra senders time to push past the limit if the gate leaked.
        try await Task.sleep(for: .milliseconds(300))
        #expect(transport.requestsInFlight == limit)
        #expect(transport.peakRequestsInFlight == limit)
        #expect(transport.peakRequestsInLibcurl == limit)

        // Cancel waiting ones first: the ones in libcurl must keep their slots.
        for sender in senders { sender.cancel() }
        for sender in senders {
            await #expect(throws: CancellationError.self) { try await sender.value }
        }
        #expect(try await Self.eventually { transport.requestsInFlight == 0 && transport.requestsInLibcurl == 0 })
        #expect(transport.peakRequestsInLibcurl == limit)
        await transport.shutdown()
    }

    @Test func slotsFreedByFailuresGoToWaitingSenders() async throws {
        // Every request fails fast (refused); 50 senders through 2 slots must all finish.
        let closed = try LocalTCPServer(.refuse)
        let transport = try CurlHTTP2Transport(configuration: CurlTransportConfiguration(maximumRequestsInFlight: 2))
        let request = Self.push(to: closed.baseURL)
        let failures = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    do { _ = try await transport.send(request); return false } catch { return error is APNsTransportError }
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(failures == 50)
        #expect(transport.peakRequestsInFlight == 2)
        #expect(transport.requestsInFlight == 0)
        await transport.shutdown()
    }

    @Test func shutdownRefusesNewAndWaitingSendsAndLetsInFlightOnesFinish() async throws {
        let silent = try LocalTCPServer(.silent)
        let transport = try CurlHTTP2Transport(configuration: CurlTransportConfiguration(
            maximumRequestsInFlight: 1, connectTimeout: .milliseconds(400), requestTimeout: .milliseconds(600)))
        let request = Self.push(to: silent.baseURL)
        let inFlight = Task { try await transport.send(request) }
        #expect(try await Self.eventually { transport.requestsInLibcurl == 1 })
        let waiting = Task { try await transport.send(request) }
        try await Task.sleep(for: .milliseconds(50))

        await transport.shutdown()
        // The one in flight ran to its own end (a timeout here), not cut off by shutdown.
        await #expect(throws: APNsTransportError.timedOut) { try await inFlight.value }
        await #expect(throws: APNsTransportError.shutDown) { try await waiting.value }
        await #expect(throws: APNsTransportError.shutDown) { try await transport.send(request) }
        await transport.shutdown()  // a second call returns at once
    }
}
