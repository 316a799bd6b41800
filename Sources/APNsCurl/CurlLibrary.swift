import CCurl
import CCurlShim

/// The libcurl this process runs with (not the headers it was compiled against:
/// a distribution can swap the shared library underneath).
public enum CurlLibrary {
    /// "7.88.1".
    public static var version: String { String(cString: rangers_curl_runtime_version()) }

    public static var supportsHTTP2: Bool { rangers_curl_runtime_supports_http2() }

    /// 0xXXYYZZ for XX.YY.ZZ, as libcurl numbers itself.
    static var versionNumber: UInt32 { UInt32(rangers_curl_runtime_version_number()) }

    /// libcurl 7.x ends every HTTP/2 stream answered by a body-less 200 — each
    /// delivered push — with an RST_STREAM. Servers hardened against Rapid Reset
    /// (CVE-2023-44487) count client resets and close connections that send too many;
    /// libcurl 8 finishes streams without one.
    static let minimumVersionNumber: UInt32 = 0x08_00_00

    /// curl_global_init must run once before any handle exists, before any other
    /// libcurl call (curl_version_info included), and is not safe to race with itself;
    /// Swift runs a global's initializer exactly once, under a lock.
    private static let globalInitialization: CURLcode = rangers_curl_global_init_default()

    /// Initializes libcurl once, then checks that it speaks HTTP/2 and is recent
    /// enough. Every handle is made after this.
    static func prepare() throws(CurlTransportSetupError) {
        let code = globalInitialization
        guard code == CURLE_OK else {
            throw .libcurlInitializationFailed("curl_global_init: \(String(cString: curl_easy_strerror(code)))")
        }
        try requireUsable(version: version, versionNumber: versionNumber, supportsHTTP2: supportsHTTP2)
    }

    /// Separate from `prepare` so each refusal can be tested on the libcurl at hand.
    static func requireUsable(version: String, versionNumber: UInt32, supportsHTTP2: Bool) throws(CurlTransportSetupError) {
        guard supportsHTTP2 else { throw .libcurlWithoutHTTP2(version: version) }
        guard versionNumber >= minimumVersionNumber else { throw .libcurlResetsEveryStream(version: version) }
    }
}

/// Why a `CurlHTTP2Transport` could not be made.
public enum CurlTransportSetupError: Error, Hashable, Sendable, CustomStringConvertible {
    case libcurlWithoutHTTP2(version: String)
    case libcurlResetsEveryStream(version: String)
    case libcurlInitializationFailed(String)
    case invalidConfiguration(String)
    case unreadableCAFile(path: String)

    public var description: String {
        switch self {
        case .libcurlWithoutHTTP2(let version):
            "the linked libcurl \(version) was built without HTTP/2, which APNs requires; "
                + "install libcurl4-openssl-dev ≥ 8 (Debian 12: from bookworm-backports) or a libcurl built with nghttp2"
        case .libcurlResetsEveryStream(let version):
            "the linked libcurl \(version) ends every delivered push's HTTP/2 stream with an RST_STREAM, which servers "
                + "hardened against Rapid Reset (CVE-2023-44487) count against the sender; libcurl 8 or newer is required "
                + "(Debian 12: apt-get install -t bookworm-backports libcurl4-openssl-dev libcurl4)"
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
