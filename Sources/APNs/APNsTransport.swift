import Foundation

/// One HTTP/2 request as a transport sends it. Header names are lowercase.
public struct APNsHTTPRequest: Sendable {
    /// The methods APNs' APIs use: pushes and broadcasts are POSTs; channel
    /// management also reads (GET) and deletes (DELETE).
    public enum Method: String, Sendable {
        case post = "POST", get = "GET", delete = "DELETE"
    }

    public var method: Method
    public var url: String
    public var headers: [(name: String, value: String)]
    /// Nil for a request without a body (GET, DELETE).
    public var body: Data?

    /// A POST, as every push is.
    public init(url: String, headers: [(name: String, value: String)], body: Data) {
        method = .post
        self.url = url
        self.headers = headers
        self.body = body
    }

    public init(method: Method, url: String, headers: [(name: String, value: String)], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

public struct APNsHTTPResponse: Sendable {
    public var status: Int
    public var headers: APNsHTTPHeaders
    public var body: Data

    public init(status: Int, headers: APNsHTTPHeaders, body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public init(status: Int, headers: [String: String], body: Data) {
        self.init(status: status, headers: APNsHTTPHeaders(headers), body: body)
    }
}

/// A failure below HTTP: the request may or may not have reached APNs, so it is
/// safe to retry (APNs and the phone de-duplicate by apns-id and timestamp).
public enum APNsTransportError: Error, Hashable, Sendable, CustomStringConvertible {
    case cannotConnect(String)
    case connectionLost(String)
    /// The server sent GOAWAY, with the `reason` from its debug data if any.
    case goAway(reason: String?)
    case timedOut
    case tls(String)
    case shutDown

    public var description: String {
        switch self {
        case .cannotConnect(let detail): "cannot connect: \(detail)"
        case .connectionLost(let detail): "connection lost: \(detail)"
        case .goAway(let reason): "server closed the connection (GOAWAY\(reason.map { ": \($0)" } ?? ""))"
        case .timedOut: "timed out"
        case .tls(let detail): "TLS: \(detail)"
        case .shutDown: "the client is shut down"
        }
    }
}

/// Carries requests to APNs over HTTP/2. `send` may be called from many tasks at
/// once; an implementation applies back-pressure rather than queueing without bound.
public protocol APNsTransport: Sendable {
    func send(_ request: APNsHTTPRequest) async throws -> APNsHTTPResponse
    /// Finishes what is in flight and closes connections.
    func shutdown() async
    /// Where tasks that mostly send should run, if the transport has a thread
    /// of its own that can run them (saving a hand-off between threads per push).
    var preferredExecutor: (any TaskExecutor)? { get }
}

extension APNsTransport {
    public var preferredExecutor: (any TaskExecutor)? { nil }
}
