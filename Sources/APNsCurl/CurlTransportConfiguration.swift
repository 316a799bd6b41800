import Foundation

/// How `CurlHTTP2Transport` talks to one APNs host. Peer verification is always on.
public struct CurlTransportConfiguration: Hashable, Sendable {
    /// Connections libcurl may open to one host. It opens another only when every
    /// open one already carries `maximumConcurrentStreamsPerConnection` streams.
    public var maximumConnectionsPerHost: Int
    /// Streams (requests) multiplexed on one connection; a server's lower
    /// SETTINGS_MAX_CONCURRENT_STREAMS wins.
    public var maximumConcurrentStreamsPerConnection: Int
    /// Requests sent or waiting in libcurl at once. `send` suspends while this many
    /// are under way, so a burst is held back by its callers, not buffered here.
    public var maximumRequestsInFlight: Int
    /// TCP connect plus TLS handshake.
    public var connectTimeout: Duration
    /// One request from `send` to its response, including any wait for a connection.
    public var requestTimeout: Duration
    /// A PEM file of further trusted certificates (a private endpoint, the simulator),
    /// trusted in addition to the system store.
    public var caFile: URL?
    /// An idle connection older than this is closed rather than reused. APNs asks
    /// providers to keep connections open, so this is long.
    public var idleConnectionLifetime: Duration

    /// - Parameter maximumRequestsInFlight: defaults to connections × streams, which
    ///   keeps every allowed stream busy without queueing inside libcurl.
    public init(
        maximumConnectionsPerHost: Int = 1,
        maximumConcurrentStreamsPerConnection: Int = 100,
        maximumRequestsInFlight: Int? = nil,
        connectTimeout: Duration = .seconds(10),
        requestTimeout: Duration = .seconds(30),
        caFile: URL? = nil,
        idleConnectionLifetime: Duration = .seconds(3600)
    ) {
        self.maximumConnectionsPerHost = maximumConnectionsPerHost
        self.maximumConcurrentStreamsPerConnection = maximumConcurrentStreamsPerConnection
        self.maximumRequestsInFlight = maximumRequestsInFlight
            ?? maximumConnectionsPerHost.multipliedReportingOverflow(by: maximumConcurrentStreamsPerConnection).partialValue
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.caFile = caFile
        self.idleConnectionLifetime = idleConnectionLifetime
    }

    func validate() throws(CurlTransportSetupError) {
        // libcurl takes these as C longs; past a million they only mean "unbounded".
        let counts = 1...1_000_000
        guard counts.contains(maximumConnectionsPerHost) else {
            throw .invalidConfiguration("maximumConnectionsPerHost must be in \(counts), got \(maximumConnectionsPerHost)")
        }
        // RFC 9113 caps stream ids at 2^31, libcurl's option at 2^31 - 1.
        guard (1...Int(Int32.max)).contains(maximumConcurrentStreamsPerConnection) else {
            throw .invalidConfiguration(
                "maximumConcurrentStreamsPerConnection must be at least 1, got \(maximumConcurrentStreamsPerConnection)")
        }
        guard counts.contains(maximumRequestsInFlight) else {
            throw .invalidConfiguration("maximumRequestsInFlight must be in \(counts), got \(maximumRequestsInFlight)")
        }
        for (name, duration) in [("connectTimeout", connectTimeout), ("requestTimeout", requestTimeout),
                                 ("idleConnectionLifetime", idleConnectionLifetime)]
        where duration <= .zero || duration > .seconds(86_400 * 365) {
            throw .invalidConfiguration("\(name) must be positive and under a year, got \(duration)")
        }
        if let caFile {
            guard FileManager.default.isReadableFile(atPath: caFile.path),
                  let contents = try? Data(contentsOf: caFile),
                  contents.range(of: Data("-----BEGIN CERTIFICATE-----".utf8)) != nil
            else { throw .unreadableCAFile(path: caFile.path) }
        }
    }
}

extension Duration {
    /// Whole milliseconds, at least 1 (0 means "no timeout" to libcurl).
    var curlMilliseconds: Int {
        let (seconds, attoseconds) = components
        return max(1, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }
}
