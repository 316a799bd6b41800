import APNs
import CCurl
import CCurlShim
import Foundation

/// One easy handle with everything a request needs while libcurl runs it. Transfers
/// are pooled: options that never change are set once here, the rest in `prepare`.
///
/// `@unchecked Sendable` because ownership moves between threads: the caller's
/// task prepares it and hands it to the driver thread under the driver's lock,
/// and gets it back the same way when libcurl is done. Fields marked "driver
/// lock" are only touched with that lock held.
final class CurlTransfer: @unchecked Sendable {
    enum Phase {
        case idle, checkedOut, queued, running, ended
    }

    /// How libcurl (or the driver) let go of the transfer.
    enum End: Sendable {
        case completed(CURLcode)
        case cancelled
        case refused(APNsTransportError)
    }

    /// A larger answer is not APNs talking; stop reading rather than grow without bound.
    static let maximumResponseBodyBytes = 1 << 20
    static let maximumResponseHeadBytes = 64 << 10

    let easy: CurlEasyHandle
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var body: UnsafeMutableRawBufferPointer
    private var headerLines = CurlHeaderLines()
    /// Response header lines as libcurl delivered them. Parsed by the caller's task,
    /// not on the driver thread, which is the one that limits throughput.
    /// Unchecked exclusivity: libcurl calls back once per header line, a dozen
    /// times a push, and only the thread that owns the transfer at that moment
    /// touches these (see the type's note); the runtime's per-access check was
    /// most of the callback's cost.
    @exclusivity(unchecked) fileprivate var receivedHead: [UInt8] = []
    @exclusivity(unchecked) fileprivate var receivedBody = Data()
    @exclusivity(unchecked) fileprivate var responseTooLarge = false
    /// The handle carries a method other than POST from an earlier request (a
    /// channel read or delete), which the next POST must undo.
    private var carriesOtherMethod = false

    // driver lock
    var phase = Phase.idle
    /// Bumped each time the transfer returns to the pool, so a late cancellation
    /// meant for an earlier request cannot hit the next one.
    var generation: UInt64 = 0
    var cancelRequested = false
    var continuation: UnsafeContinuation<End, Never>?

    init(configuration: CurlTransportConfiguration) throws(CurlTransportSetupError) {
        easy = try CurlEasyHandle()
        errorBuffer = .allocate(capacity: RANGERS_CURL_ERROR_SIZE)
        errorBuffer.initialize(repeating: 0, count: RANGERS_CURL_ERROR_SIZE)
        body = .allocate(byteCount: 4096, alignment: 1)

        let me = Unmanaged.passUnretained(self).toOpaque()
        try requireOK(easy.set(CURLOPT_PRIVATE, pointer: me), CURLOPT_PRIVATE)
        try requireOK(easy.set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer)), CURLOPT_ERRORBUFFER)
        try requireOK(rangers_curl_easy_setopt_write_callback(easy.raw, receiveBody), CURLOPT_WRITEFUNCTION)
        try requireOK(easy.set(CURLOPT_WRITEDATA, pointer: me), CURLOPT_WRITEDATA)
        try requireOK(rangers_curl_easy_setopt_header_callback(easy.raw, receiveHeader), CURLOPT_HEADERFUNCTION)
        try requireOK(easy.set(CURLOPT_HEADERDATA, pointer: me), CURLOPT_HEADERDATA)

        let options: [(CURLoption, Int)] = [
            // Signals (for resolver timeouts) are process-wide and unsafe with threads.
            (CURLOPT_NOSIGNAL, 1),
            (CURLOPT_HTTP_VERSION, RANGERS_CURL_HTTP_VERSION_2TLS),
            // Wait for an open connection to say it can multiplex rather than open another.
            (CURLOPT_PIPEWAIT, 1),
            (CURLOPT_SSL_VERIFYPEER, 1),
            (CURLOPT_SSL_VERIFYHOST, 2),
            (CURLOPT_SSLVERSION, RANGERS_CURL_SSLVERSION_TLSv1_2),
            (CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeout.curlMilliseconds),
            (CURLOPT_TIMEOUT_MS, configuration.requestTimeout.curlMilliseconds),
            (CURLOPT_TCP_KEEPALIVE, 1),
            (CURLOPT_TCP_KEEPIDLE, 60),
            (CURLOPT_TCP_KEEPINTVL, 30),
            (CURLOPT_MAXAGE_CONN, max(1, configuration.idleConnectionLifetime.curlMilliseconds / 1000)),
        ]
        for (option, value) in options { try requireOK(easy.set(option, value), option) }
        // Plain http:// would send the provider token in the clear.
        try requireOK(easy.set(CURLOPT_PROTOCOLS_STR, "https"), CURLOPT_PROTOCOLS_STR)
        // Only the CA file is replaced: the system CA directory (the distribution's
        // --with-ca-path) stays in use, so the file adds trust rather than narrowing it.
        if let caFile = configuration.caFile {
            try requireOK(easy.set(CURLOPT_CAINFO, caFile.path), CURLOPT_CAINFO)
        }
    }

    deinit {
        headerLines.deallocate()
        errorBuffer.deallocate()
        body.deallocate()
    }

    /// Sets what differs between requests. The transfer is not in the multi handle.
    func prepare(_ request: APNsHTTPRequest) throws(CurlTransportRequestError) {
        if let invalid = headerLines.set(request.headers) {
            headerLines.clear()
            throw .invalidHeader(name: invalid)
        }
        let length = request.body?.count ?? 0
        if length > body.count {
            body.deallocate()
            body = .allocate(byteCount: length, alignment: 1)
        }
        request.body?.withUnsafeBytes { bytes in
            if let source = bytes.baseAddress, let target = body.baseAddress { target.copyMemory(from: source, byteCount: length) }
        }

        var code = easy.set(CURLOPT_URL, request.url)
        if code == CURLE_OK { code = easy.set(CURLOPT_HTTPHEADER, list: headerLines.list) }
        if request.method == .post {
            if carriesOtherMethod, code == CURLE_OK { code = restorePost() }
            // Not COPYPOSTFIELDS: the pooled buffer outlives the transfer, so libcurl need not copy.
            if code == CURLE_OK { code = easy.set(CURLOPT_POSTFIELDS, pointer: body.baseAddress) }
            if code == CURLE_OK { code = easy.set(CURLOPT_POSTFIELDSIZE, length) }
        } else if code == CURLE_OK {
            code = setMethodWithoutBody(request.method)
        }
        guard code == CURLE_OK else { throw .rejectedByLibcurl(String(cString: curl_easy_strerror(code))) }
    }

    /// GET, or DELETE as a GET whose method name is replaced: neither sends a body.
    private func setMethodWithoutBody(_ method: APNsHTTPRequest.Method) -> CURLcode {
        carriesOtherMethod = true
        var code = easy.set(CURLOPT_HTTPGET, 1)
        if code == CURLE_OK {
            code = method == .delete ? easy.set(CURLOPT_CUSTOMREQUEST, method.rawValue) : easy.set(CURLOPT_CUSTOMREQUEST, pointer: nil)
        }
        return code
    }

    /// Back to a plain POST after a GET or DELETE on this pooled handle (setting
    /// the body again makes it a POST; the replaced method name must go).
    private func restorePost() -> CURLcode {
        carriesOtherMethod = false
        return easy.set(CURLOPT_CUSTOMREQUEST, pointer: nil)
    }

    /// The answer, or why there is none. On the caller's task, after the driver let go.
    func conclude(_ end: End) -> Result<APNsHTTPResponse, any Error> {
        switch end {
        case .cancelled:
            return .failure(CancellationError())
        case .refused(let error):
            return .failure(error)
        case .completed(let code):
            let head = ReceivedResponseHead(receivedHead)
            if code == CURLE_OK || head.survivesEarlyReset(code, bodyBytes: receivedBody.count) {
                return .success(APNsHTTPResponse(status: easy.info(CURLINFO_RESPONSE_CODE), headers: head.headers,
                                                 body: receivedBody))
            }
            if responseTooLarge {
                return .failure(APNsTransportError.connectionLost(
                    "the response exceeded \(Self.maximumResponseHeadBytes) header or \(Self.maximumResponseBodyBytes) body bytes"))
            }
            return .failure(CurlErrorMapping.transportError(code, detail: String(cString: errorBuffer)))
        }
    }

    /// Connections the last request had to open (0 when it reused one).
    var connectionsOpened: Int { easy.info(CURLINFO_NUM_CONNECTS) }

    /// Ready for the pool: nothing of the last request stays behind.
    func reset() {
        headerLines.clear()
        _ = easy.set(CURLOPT_HTTPHEADER, list: nil)
        receivedHead.removeAll(keepingCapacity: true)
        receivedBody = Data()
        responseTooLarge = false
        errorBuffer[0] = 0
    }

    fileprivate func appendHead(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard receivedHead.count + bytes.count <= Self.maximumResponseHeadBytes else {
            responseTooLarge = true
            return false
        }
        receivedHead.append(contentsOf: bytes)
        return true
    }

    fileprivate func appendBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard receivedBody.count + bytes.count <= Self.maximumResponseBodyBytes else {
            responseTooLarge = true
            return false
        }
        receivedBody.append(contentsOf: bytes)
        return true
    }
}

// The userdata is the transfer, unretained: it owns the easy handle, so it is alive
// whenever libcurl calls back. Returning less than was given makes libcurl abort
// the transfer (CURLE_WRITE_ERROR).

private let receiveHeader: rangers_curl_data_callback = { buffer, size, count, userdata in
    let length = size * count
    guard let buffer, let userdata else { return length }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
    return transfer.appendHead(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : 0
}

private let receiveBody: rangers_curl_data_callback = { buffer, size, count, userdata in
    let length = size * count
    guard let buffer, let userdata else { return length }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
    return transfer.appendBody(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : 0
}
