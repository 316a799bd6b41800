import APNs
@testable import APNsCurl
import Foundation
import Testing

@Suite struct CurlTransportSetupTests {
    @Test func linkedLibcurlSpeaksHTTP2() throws {
        #expect(CurlLibrary.supportsHTTP2)
        #expect(CurlLibrary.version.split(separator: ".").count == 3)
        _ = try CurlHTTP2Transport()
    }

    @Test func linkedLibcurlIsAtLeastEight() {
        #expect(CurlLibrary.versionNumber >= 0x08_00_00, "linked libcurl \(CurlLibrary.version)")
        #expect(CurlLibrary.version.hasPrefix("\(CurlLibrary.versionNumber >> 16)."))
    }

    @Test func libcurlWithoutHTTP2IsRefusedWithAClearMessage() {
        #expect(throws: CurlTransportSetupError.libcurlWithoutHTTP2(version: "7.29.0")) {
            try CurlLibrary.requireUsable(version: "7.29.0", versionNumber: 0x07_1D_00, supportsHTTP2: false)
        }
        let message = CurlTransportSetupError.libcurlWithoutHTTP2(version: "7.29.0").description
        #expect(message.contains("libcurl 7.29.0 was built without HTTP/2"))
        #expect(message.contains("install libcurl4-openssl-dev"))
    }

    @Test func libcurlSevenIsRefusedNamingItsVersion() throws {
        #expect(throws: CurlTransportSetupError.libcurlResetsEveryStream(version: "7.88.1")) {
            try CurlLibrary.requireUsable(version: "7.88.1", versionNumber: 0x07_58_01, supportsHTTP2: true)
        }
        try CurlLibrary.requireUsable(version: "8.0.0", versionNumber: 0x08_00_00, supportsHTTP2: true)
        let message = CurlTransportSetupError.libcurlResetsEveryStream(version: "7.88.1").description
        #expect(message.contains("libcurl 7.88.1"))
        #expect(message.contains("RST_STREAM"))
        #expect(message.contains("bookworm-backports"))
    }

    @Test(arguments: [
        CurlTransportConfiguration(maximumConnectionsPerHost: 0),
        CurlTransportConfiguration(maximumConcurrentStreamsPerConnection: 0),
        CurlTransportConfiguration(maximumRequestsInFlight: -3),
        CurlTransportConfiguration(connectTimeout: .zero),
        CurlTransportConfiguration(requestTimeout: .seconds(-1)),
    ])
    func outOfRangeConfigurationIsRefused(_ configuration: CurlTransportConfiguration) {
        #expect {
            try CurlHTTP2Transport(configuration: configuration)
        } throws: { error in
            guard case .invalidConfiguration(let detail) = error as? CurlTransportSetupError else { return false }
            return !detail.isEmpty
        }
    }

    @Test func missingOrNonPEMCAFileIsRefused() throws {
        let missing = URL(fileURLWithPath: "/nonexistent/ca.pem")
        #expect(throws: CurlTransportSetupError.unreadableCAFile(path: missing.path)) {
            try CurlHTTP2Transport(configuration: CurlTransportConfiguration(caFile: missing))
        }
        let notPEM = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-ca-\(UUID()).pem")
        try Data("hello".utf8).write(to: notPEM)
        defer { try? FileManager.default.removeItem(at: notPEM) }
        #expect(throws: CurlTransportSetupError.unreadableCAFile(path: notPEM.path)) {
            try CurlHTTP2Transport(configuration: CurlTransportConfiguration(caFile: notPEM))
        }
    }

    @Test func defaultInFlightLimitFillsEveryAllowedStream() {
        let configuration = CurlTransportConfiguration(maximumConnectionsPerHost: 3, maximumConcurrentStreamsPerConnection: 50)
        #expect(configuration.maximumRequestsInFlight == 150)
    }

    @Test(arguments: [
        ("apns-topic", "com.example\r\nx-injected: 1"),
        ("apns-topic", "com.example\nx"),
        ("apns-topic", "a\u{0}b"),
        ("bad name", "value"),
        ("bad:name", "value"),
        ("bad;name", "value"),
        ("", "value"),
    ])
    func headerThatCouldSmuggleAnotherIsRefusedBeforeSending(name: String, value: String) async throws {
        // Refused before any connection: the port is closed, and the error is not about connecting.
        let closed = try LocalTCPServer(.refuse)
        let transport = try CurlHTTP2Transport()
        let request = APNsHTTPRequest(url: "\(closed.baseURL)/3/device/00", headers: [(name, value)], body: Data("{}".utf8))
        await #expect(throws: CurlTransportRequestError.invalidHeader(name: name)) {
            try await transport.send(request)
        }
        #expect(transport.requestsInFlight == 0)
        await transport.shutdown()
    }

    @Test func invalidHeaderErrorNamesTheHeaderButNeverItsValue() {
        let secret = "bearer eyJhbGciOiJFUzI1NiJ9.secret"
        var lines = CurlHeaderLines()
        defer { lines.deallocate() }
        #expect(lines.set([("apns-topic", "t"), ("authorization", secret + "\r\n")]) == "authorization")
        #expect(lines.set([("apns-topic", "t"), ("authorization", secret)]) == nil)
        // A header that was valid in the last request is checked again once its value changes.
        #expect(lines.set([("apns-topic", "t"), ("authorization", secret + "\r\nx-injected: 1")]) == "authorization")
        #expect(lines.set([("apns-topic", "t"), ("authorization", secret)]) == nil)
        #expect(lines.set([("apns-topic", "t\n"), ("authorization", secret)]) == "apns-topic")
        let message = CurlTransportRequestError.invalidHeader(name: "authorization").description
        #expect(message.contains("authorization") && !message.contains("eyJ"))
    }

    /// RFC 9110 §5.6.2: tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." /
    /// "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA; every other byte is refused in a name.
    @Test func headerNamesAcceptExactlyTheTokenCharacters() {
        let tchar = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        for byte in UInt8.min...UInt8.max {
            #expect(CurlHeaderLines.isTokenCharacter(byte) == tchar.contains(byte), "byte \(byte)")
            #expect(CurlHeaderLines.mayBeInValue(byte) == ![0x00, 0x0A, 0x0D].contains(byte), "byte \(byte)")
        }
    }

    @Test func headerLinesAreLaidOutAsLibcurlReadsThem() {
        var lines = CurlHeaderLines()
        defer { lines.deallocate() }
        let headers = [("apns-push-type", "alert"), ("apns-collapse-id", ""), ("x-long", String(repeating: "v", count: 3000))]
        #expect(lines.set(headers) == nil)
        #expect(lines.texts == ["apns-push-type: alert", "apns-collapse-id;", "x-long: " + String(repeating: "v", count: 3000)])
        #expect(lines.set([]) == nil && lines.texts.isEmpty)
    }
}
