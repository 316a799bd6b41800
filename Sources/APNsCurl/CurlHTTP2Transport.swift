import APNs
import Foundation

/// HTTP/2 over TLS to APNs through libcurl: one multi handle on its own thread,
/// requests multiplexed as streams over few long-lived connections.
///
/// `send` may be called from any number of tasks. At most
/// `maximumRequestsInFlight` requests are under way; further callers suspend
/// until one finishes, so a burst waits in its callers rather than in a queue
/// here. Cancelling a caller's task withdraws its request.
public final class CurlHTTP2Transport: APNsTransport {
    public let configuration: CurlTransportConfiguration
    private let driver: CurlMultiDriver
    /// The transport's thread as a task executor: tasks that do little but send
    /// (a dispatcher's sending loop, a benchmark) run cheapest there.
    public let executor: CurlTransportExecutor
    public var preferredExecutor: (any TaskExecutor)? { executor }

    /// - Throws: `CurlTransportSetupError` when libcurl lacks HTTP/2, the
    ///   configuration is out of range or the CA file cannot be read.
    public init(configuration: CurlTransportConfiguration = CurlTransportConfiguration()) throws(CurlTransportSetupError) {
        try CurlLibrary.prepare()
        try configuration.validate()
        self.configuration = configuration
        driver = try CurlMultiDriver(configuration: configuration)
        executor = CurlTransportExecutor(driver: driver)
    }

    deinit {
        // Nothing can be in flight (each `send` holds the transport); this only ends the thread.
        driver.requestStop()
    }

    /// - Throws: `APNsTransportError` for failures below HTTP (`.shutDown` after
    ///   `shutdown()`), `CurlTransportRequestError` for a request that cannot be
    ///   sent as given, `CancellationError` when the calling task is cancelled.
    public func send(_ request: APNsHTTPRequest) async throws -> APNsHTTPResponse {
        try Task.checkCancellation()
        let (transfer, generation) = try await driver.checkOut()
        do {
            try transfer.prepare(request)
        } catch {
            driver.checkIn(transfer, connectionsOpened: 0)
            throw error
        }
        let end = await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                driver.submit(transfer, continuation: continuation)
            }
        } onCancel: {
            driver.cancel(transfer, generation: generation)
        }
        let result = transfer.conclude(end)
        // Only a transfer libcurl ran to its end has fresh figures; others keep the last request's.
        var opened = 0
        if case .completed = end { opened = transfer.connectionsOpened }
        driver.checkIn(transfer, connectionsOpened: opened)
        return try result.get()
    }

    /// Lets in-flight requests finish, refuses new ones (`APNsTransportError.shutDown`),
    /// then stops the thread and closes the connections. Safe to call more than once.
    public func shutdown() async {
        await driver.shutdown()
    }

    /// Connections opened so far (the sum of CURLINFO_NUM_CONNECTS over finished
    /// requests). Stays small when streams are multiplexed as they should be.
    public var connectionsOpened: Int { driver.diagnostics.connectionsOpened }

    /// Requests taken in and not yet answered (at most `maximumRequestsInFlight`).
    public var requestsInFlight: Int { driver.diagnostics.requestsInFlight }

    /// The most requests that were ever in flight at once.
    public var peakRequestsInFlight: Int { driver.diagnostics.peakRequestsInFlight }

    /// Requests attached to the multi handle as of the driver thread's last turn.
    var requestsInLibcurl: Int { driver.diagnostics.attached }

    /// The most requests libcurl was ever working on at once, counted where they
    /// are handed to it: a check on the in-flight limit from the other side.
    var peakRequestsInLibcurl: Int { driver.diagnostics.peakAttached }
}
