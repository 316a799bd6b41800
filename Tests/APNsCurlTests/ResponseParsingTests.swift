import APNs
@testable import APNsCurl
import CCurl
import Testing

/// What the transport makes of libcurl's header lines and result codes.
@Suite struct ResponseParsingTests {
    static func head(_ lines: [String]) -> ReceivedResponseHead {
        ReceivedResponseHead(Array(lines.map { $0 + "\r\n" }.joined().utf8))
    }

    @Test func keepsTheFinalHeaderBlockWithLowercasedNames() {
        let head = Self.head([
            "HTTP/1.1 100 Continue", "X-Interim: yes", "",
            "HTTP/2 410", "apns-id: 8D1A", "Content-Type: application/json", "Via: a", "via:  b ", "",
        ])
        #expect(head.status == 410)
        #expect(head.isComplete)
        #expect(head.headers.fields == ["apns-id": "8D1A", "content-type": "application/json", "via": "a, b"])
        #expect(head.headers["via"] == "a, b")
        #expect(head.headers["content-type"] == "application/json")
        #expect(head.headers["x-interim"] == nil)
        #expect(head.headers["apns"] == nil)
    }

    @Test func aHeadCutOffBeforeItsBlankLineIsIncomplete() {
        let head = Self.head(["HTTP/2 200", "content-length: 0"])
        #expect(!head.isComplete)
        #expect(!head.survivesEarlyReset(CURLE_HTTP2_STREAM, bodyBytes: 0))
    }

    @Test func aCompleteAnswerSurvivesTheServerResettingTheUpload() {
        let head = Self.head(["HTTP/2 200", "content-length: 0", "apns-id: x", ""])
        #expect(head.survivesEarlyReset(CURLE_HTTP2_STREAM, bodyBytes: 0))
        #expect(head.survivesEarlyReset(CURLE_SEND_ERROR, bodyBytes: 0))
        // Only those two codes, and only with the whole body.
        #expect(!head.survivesEarlyReset(CURLE_RECV_ERROR, bodyBytes: 0))
        let partial = Self.head(["HTTP/2 400", "content-length: 30", ""])
        #expect(!partial.survivesEarlyReset(CURLE_HTTP2_STREAM, bodyBytes: 12))
        let unannounced = Self.head(["HTTP/2 200", ""])
        #expect(!unannounced.survivesEarlyReset(CURLE_HTTP2_STREAM, bodyBytes: 0))
    }

    @Test func libcurlErrorsMapOntoErrorsTheClientRetries() {
        func mapped(_ code: CURLcode, _ detail: String = "detail") -> APNsTransportError {
            CurlErrorMapping.transportError(code, detail: detail)
        }
        #expect(mapped(CURLE_COULDNT_CONNECT) == .cannotConnect("detail"))
        #expect(mapped(CURLE_COULDNT_RESOLVE_HOST) == .cannotConnect("detail"))
        #expect(mapped(CURLE_OPERATION_TIMEDOUT) == .timedOut)
        #expect(mapped(CURLE_PEER_FAILED_VERIFICATION) == .tls("detail"))
        #expect(mapped(CURLE_SSL_CONNECT_ERROR) == .tls("detail"))
        for code in [CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE] {
            #expect(mapped(code) == .connectionLost("detail"))
        }
        #expect(mapped(CURLE_HTTP2, "received GOAWAY, error=0") == .goAway(reason: nil))
        // Without libcurl's own message, its description of the code stands in.
        guard case .connectionLost(let detail) = mapped(CURLE_RECV_ERROR, "") else {
            Issue.record("expected connectionLost")
            return
        }
        #expect(!detail.isEmpty)
    }
}
