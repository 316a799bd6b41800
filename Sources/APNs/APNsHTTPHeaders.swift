import Foundation

/// A response's header fields, found by lowercase name; a name that came more
/// than once reads as its values joined with ", ". A transport hands over the
/// header block as it arrived (`init(block:)`) and a field is read when asked for:
/// an answer carries five or so fields of which a push reads one or two, and
/// making a dictionary of strings of all of them cost more per push than any
/// other part of reading the answer.
public struct APNsHTTPHeaders: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    /// "name: value" lines, each ending in LF or CRLF, without the status line.
    private let block: [UInt8]

    /// The header lines of one block, as received (status line and blank line left out).
    public init(block: [UInt8]) { self.block = block }

    public init(_ fields: [String: String]) {
        block = Array(fields.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)\r\n" }.joined().utf8)
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(Dictionary(elements, uniquingKeysWith: { $1 }))
    }

    /// The field's value; nil when the answer has none. `name` in lowercase.
    public subscript(name: String) -> String? {
        var name = name
        return name.withUTF8 { wanted in
            block.withUnsafeBufferPointer { all in
                var found: String?
                var start = 0
                while start < all.count {
                    let end = Self.lineEnd(in: all, from: start)
                    // Most lines are another field: told apart by where their colon is.
                    let colon = start + wanted.count
                    if colon < end, all[colon] == UInt8(ascii: ":"),
                       (0..<wanted.count).allSatisfy({ Self.lowercased(all[start + $0]) == wanted[$0] }) {
                        var valueStart = colon + 1, valueEnd = end
                        while valueStart < valueEnd, Self.isBlank(all[valueStart]) { valueStart += 1 }
                        while valueEnd > valueStart, Self.isBlank(all[valueEnd - 1]) { valueEnd -= 1 }
                        let text = String(decoding: UnsafeBufferPointer(rebasing: all[valueStart..<valueEnd]), as: UTF8.self)
                        found = found.map { $0 + ", " + text } ?? text
                    }
                    start = end + 1
                }
                return found
            }
        }
    }

    /// Every field, names lowercased (for logs and tests; a push reads fields by name).
    public var fields: [String: String] {
        var fields: [String: String] = [:]
        forEachField { name, value in
            let key = String(decoding: name.map(Self.lowercased), as: UTF8.self)
            let text = String(decoding: value, as: UTF8.self)
            fields[key] = fields[key].map { $0 + ", " + text } ?? text
        }
        return fields
    }

    public static func == (lhs: APNsHTTPHeaders, rhs: APNsHTTPHeaders) -> Bool { lhs.fields == rhs.fields }

    /// Calls `body` with each field's name and its value without surrounding blanks.
    private func forEachField(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void) {
        block.withUnsafeBytes { all in
            var start = 0
            while start < all.count {
                var end = start
                while end < all.count, all[end] != UInt8(ascii: "\n") { end += 1 }
                let next = end + 1
                if let colon = (start..<end).first(where: { all[$0] == UInt8(ascii: ":") }), colon > start {
                    var valueStart = colon + 1, valueEnd = end
                    while valueStart < valueEnd, Self.isBlank(all[valueStart]) { valueStart += 1 }
                    while valueEnd > valueStart, Self.isBlank(all[valueEnd - 1]) { valueEnd -= 1 }
                    body(UnsafeRawBufferPointer(rebasing: all[start..<colon]), UnsafeRawBufferPointer(rebasing: all[valueStart..<valueEnd]))
                }
                start = next
            }
        }
    }

    /// Where the line starting at `start` ends: its LF, or the end of the block.
    static func lineEnd(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = bytes.baseAddress, start < bytes.count,
              let newline = memchr(base + start, Int32(UInt8(ascii: "\n")), bytes.count - start)
        else { return bytes.count }
        return base.distance(to: newline.assumingMemoryBound(to: UInt8.self))
    }

    private static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }

    private static func lowercased(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte + 0x20 : byte }
}
