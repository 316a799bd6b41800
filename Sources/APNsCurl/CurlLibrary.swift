import CCurl
import CCurlShim

/// The libcurl this process runs with (not the headers it was compiled against:
/// a distribution can swap the shared library underneath).
public enum CurlLibrary {
    /// "7.88.1".
    public static var version: String { String(cString: rangers_curl_runtime_version()) }

    public static var supportsHTTP2: Bool { rangers_curl_runtime_supports_http2() }

    /// curl_global_init must run once before any handle exists and is not safe to
    /// race with itself; Swift runs a global's initializer exactly once, under a lock.
    private static let globalInitialization: CURLcode = rangers_curl_global_init_default()

    /// Checks HTTP/2 support, then initializes libcurl once. Every handle is made after this.
    static func prepare() throws(CurlTransportSetupError) {
        try requireHTTP2(version: version, supportsHTTP2: supportsHTTP2)
        let code = globalInitialization
        guard code == CURLE_OK else {
            throw .libcurlInitializationFailed("curl_global_init: \(String(cString: curl_easy_strerror(code)))")
        }
    }

    /// Separate from `prepare` so the refusal can be tested on a libcurl that has HTTP/2.
    static func requireHTTP2(version: String, supportsHTTP2: Bool) throws(CurlTransportSetupError) {
        guard supportsHTTP2 else { throw .libcurlWithoutHTTP2(version: version) }
    }
}

/// Why a `CurlHTTP2Transport` could not be made.
public enum CurlTransportSetupError: Error, Hashable, Sendable, CustomStringConvertible {
    case libcurlWithoutHTTP2(version: String)
    case libcurlInitializationFailed(String)
    case invalidConfiguration(String)
    case unreadableCAFile(path: String)

    public var description: String {
        switch self {
        case .libcurlWithoutHTTP2(let version):
            "the linked libcurl \(version) was built without HTTP/2, which APNs requires; "
                + "install libcurl4-openssl-dev ≥ 7.68 (Debian/Ubuntu) or a libcurl built with nghttp2"
        case .libcurlInitializationFailed(let detail): "libcurl could not be initialized: \(detail)"
        case .invalidConfiguration(let detail): "invalid transport configuration: \(detail)"
        case .unreadableCAFile(let path): "cannot read the CA file \(path) (a PEM file of trusted certificates)"
        }
    }
}

/// A request the transport refuses before anything is sent.
public enum CurlTransportRequestError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A header name or value holds a line break or NUL, which could smuggle in
    /// another header. Only the name is kept: values carry credentials.
    case invalidHeader(name: String)
    /// libcurl refused an option for this request.
    case rejectedByLibcurl(String)

    public var description: String {
        switch self {
        case .invalidHeader(let name):
            "header \(name.debugDescription) is not valid: names must be non-empty tokens and values must not contain CR, LF or NUL"
        case .rejectedByLibcurl(let detail): "libcurl refused the request: \(detail)"
        }
    }
}
