import APNs
import CCurl
import Foundation

/// The response header lines libcurl delivered: the status and the final header
/// block (after any 1xx), whose fields are read when asked for (`APNsHTTPHeaders`).
struct ReceivedResponseHead {
    let status: Int
    /// The blank line after the final (non-1xx) header block arrived.
    let isComplete: Bool
    /// The final block's header lines.
    let headers: APNsHTTPHeaders

    init(_ bytes: [UInt8]) {
        var blockStart = 0, blockEnd = 0
        var status = 0, isComplete = false
        bytes.withUnsafeBufferPointer { all in
            var start = 0
            while start < all.count {
                // memchr rather than a byte at a time: this runs for every push's answer.
                let end = Self.lineEnd(in: all, from: start)
                let line = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: all[start..<min(end + 1, all.count)]))
                if Self.isStatusLine(line) {
                    // A new status line (after an interim 1xx) starts a new header block.
                    status = Self.status(ofStatusLine: line)
                    isComplete = false
                    blockStart = end + 1
                    blockEnd = blockStart
                } else if line.count <= 2, line.allSatisfy({ $0 == 0x0D || $0 == 0x0A }) {
                    isComplete = status >= 200
                } else if !isComplete {
                    blockEnd = min(end + 1, all.count)
                }
                start = end + 1
            }
        }
        self.status = status
        self.isComplete = isComplete
        headers = APNsHTTPHeaders(block: blockEnd > blockStart ? Array(bytes[blockStart..<blockEnd]) : [])
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

    /// Where the line starting at `start` ends: its LF, or the end of the bytes.
    private static func lineEnd(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = bytes.baseAddress, start < bytes.count,
              let newline = memchr(base + start, Int32(UInt8(ascii: "\n")), bytes.count - start)
        else { return bytes.count }
        return base.distance(to: newline.assumingMemoryBound(to: UInt8.self))
    }

    private static func isStatusLine(_ line: UnsafeRawBufferPointer) -> Bool {
        line.count >= 5 && line[0] == UInt8(ascii: "H") && line[1] == UInt8(ascii: "T") && line[2] == UInt8(ascii: "T")
            && line[3] == UInt8(ascii: "P") && line[4] == UInt8(ascii: "/")
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
