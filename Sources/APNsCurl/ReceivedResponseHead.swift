import CCurl

/// The response header lines libcurl delivered, parsed: names lowercased, repeated
/// names joined with ", ", and only the final block kept (after any 1xx).
struct ReceivedResponseHead {
    /// Room for APNs' few headers from the start: growing a dictionary rehashes it.
    private(set) var headers = [String: String](minimumCapacity: 8)
    private(set) var status = 0
    /// The blank line after the final (non-1xx) header block arrived.
    private(set) var isComplete = false

    init(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { all in
            var start = 0
            while start < all.count {
                let end = all[start...].firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? all.count
                take(line: UnsafeRawBufferPointer(rebasing: all[start..<end]))
                start = end
            }
        }
    }

    /// Whether the answer stands although libcurl reports an error.
    ///
    /// A server may answer before it has read the whole request body and then
    /// reset the stream with NO_ERROR; RFC 9113 §8.1 says the client must keep
    /// that answer. libcurl 7.88 instead fails the transfer when it next tries
    /// to send on the closed stream (curl issue #22984, fixed upstream by PR
    /// #22987), which a sink such as nginx's `return 200` provokes under load.
    /// The answer counts when its head ended and its body is exactly as long as
    /// it announced.
    func survivesEarlyReset(_ code: CURLcode, bodyBytes: Int) -> Bool {
        guard code == CURLE_HTTP2_STREAM || code == CURLE_SEND_ERROR, isComplete,
              let announced = headers["content-length"].flatMap({ Int($0) })
        else { return false }
        return announced == bodyBytes
    }

    private mutating func take(line: UnsafeRawBufferPointer) {
        if line.starts(with: "HTTP/".utf8) {
            // A new status line (after an interim 1xx) starts a new header block.
            headers.removeAll(keepingCapacity: true)
            isComplete = false
            status = Self.status(ofStatusLine: line)
            return
        }
        if line.allSatisfy({ $0 == 0x0D || $0 == 0x0A }) {
            isComplete = status >= 200
            return
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { return }
        let nameBytes = UnsafeRawBufferPointer(rebasing: line[..<colon])
        // HTTP/2 sends names in lowercase already; lowercasing copies, so only when needed.
        let name = nameBytes.contains(where: { (0x41...0x5A).contains($0) })
            ? String(decoding: nameBytes, as: UTF8.self).lowercased()
            : String(decoding: nameBytes, as: UTF8.self)
        var start = colon + 1
        var end = line.count
        let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
        while start < end, blank(line[start]) { start += 1 }
        while end > start, blank(line[end - 1]) { end -= 1 }
        let value = String(decoding: UnsafeRawBufferPointer(rebasing: line[start..<end]), as: UTF8.self)
        if let earlier = headers[name] {
            headers[name] = earlier + ", " + value
        } else {
            headers[name] = value
        }
    }

    /// 200 from "HTTP/2 200 " (HTTP/2 has no reason phrase; HTTP/1.1 does).
    static func status(ofStatusLine line: UnsafeRawBufferPointer) -> Int {
        guard let space = line.firstIndex(of: UInt8(ascii: " ")) else { return 0 }
        var status = 0
        for byte in line[(space + 1)...].prefix(3) {
            guard (0x30...0x39).contains(byte) else { return 0 }
            status = status * 10 + Int(byte - 0x30)
        }
        return status
    }
}
