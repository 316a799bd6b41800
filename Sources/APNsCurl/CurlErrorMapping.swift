import APNs
import CCurl

/// libcurl's result codes in `APNsTransportError`'s terms, which `APNsClient`
/// retries. The detail is libcurl's own message (host, port, TLS reason): it
/// never contains request headers, so never the provider token.
enum CurlErrorMapping {
    static func transportError(_ code: CURLcode, detail: String) -> APNsTransportError {
        let message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        switch code {
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .cannotConnect(message)
        case CURLE_UNSUPPORTED_PROTOCOL:
            return .cannotConnect("only https:// URLs are allowed (\(message))")
        case CURLE_URL_MALFORMAT:
            return .cannotConnect("malformed URL (\(message))")
        case CURLE_OPERATION_TIMEDOUT:
            return .timedOut
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
             CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ENGINE_NOTFOUND,
             CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_USE_SSL_FAILED,
             CURLE_SSL_SHUTDOWN_FAILED:
            return .tls(message)
        case CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING,
             CURLE_PARTIAL_FILE:
            // libcurl itself retries streams a GOAWAY refused; what reaches here
            // died with its connection. libcurl keeps no GOAWAY debug data, so
            // its reason is unknown.
            if message.localizedCaseInsensitiveContains("GOAWAY") { return .goAway(reason: nil) }
            return .connectionLost(message)
        default:
            return .connectionLost("libcurl error \(code.rawValue): \(message)")
        }
    }
}
