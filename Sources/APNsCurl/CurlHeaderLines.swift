import CCurl

/// Request headers as the `curl_slist` libcurl reads, built in buffers that are
/// reused from request to request. `curl_slist_append` would instead allocate a
/// node and copy a string for every header of every push.
///
/// libcurl only reads the list (CURLOPT_HTTPHEADER never frees or changes it),
/// so nodes and text may live in our own memory as long as the transfer runs.
struct CurlHeaderLines {
    private var nodes: UnsafeMutablePointer<curl_slist>
    private var nodeCapacity: Int
    private var text: UnsafeMutablePointer<UInt8>
    private var textCapacity: Int
    /// The first node, or nil for no headers: what CURLOPT_HTTPHEADER takes.
    private(set) var list: UnsafeMutablePointer<curl_slist>?
    /// The headers last laid out, all found valid. Most of a push's headers are
    /// the same strings push after push (the provider token, topic, push type):
    /// comparing with the last is mostly a pointer comparison, where checking
    /// the provider token's 200 bytes again was a tenth of the transport's own work.
    private var lastValid: [(name: String, value: String)] = []

    init() {
        nodeCapacity = 16
        nodes = .allocate(capacity: nodeCapacity)
        textCapacity = 1024
        text = .allocate(capacity: textCapacity)
    }

    func deallocate() {
        nodes.deallocate()
        text.deallocate()
    }

    /// Lays out "name: value" lines (libcurl's "name;" for an empty value).
    /// Returns the name of the first header that is not a valid token or whose
    /// value holds CR, LF or NUL, which could smuggle in another header.
    mutating func set(_ headers: [(name: String, value: String)]) -> String? {
        list = nil
        guard !headers.isEmpty else { return nil }
        var bytes = 0
        for (name, value) in headers { bytes += name.utf8.count + value.utf8.count + 3 }
        if headers.count > nodeCapacity {
            nodes.deallocate()
            nodeCapacity = headers.count
            nodes = .allocate(capacity: nodeCapacity)
        }
        if bytes > textCapacity {
            text.deallocate()
            textCapacity = bytes
            text = .allocate(capacity: textCapacity)
        }

        var offset = 0
        for index in headers.indices {
            let (name, value) = headers[index]
            let known = index < lastValid.count && lastValid[index].name == name && lastValid[index].value == value
            let start = offset
            guard !name.isEmpty, copy(name, to: &offset, isName: true, known: known) else {
                lastValid = []
                return name
            }
            if value.isEmpty {
                text[offset] = UInt8(ascii: ";")
                offset += 1
            } else {
                text[offset] = UInt8(ascii: ":")
                text[offset + 1] = UInt8(ascii: " ")
                offset += 2
                guard copy(value, to: &offset, isName: false, known: known) else {
                    lastValid = []
                    return name
                }
            }
            text[offset] = 0
            offset += 1
            let line = UnsafeMutableRawPointer(text + start).assumingMemoryBound(to: CChar.self)
            nodes[index] = curl_slist(data: line, next: index + 1 < headers.count ? nodes + index + 1 : nil)
        }
        list = nodes
        lastValid = headers
        return nil
    }

    /// Copies the string's UTF-8 into `text` at `offset` if every byte is
    /// acceptable (or it is `known` to be): a token character in a name, anything
    /// but CR, LF and NUL in a value. From the string's own buffer when it has one (native strings do):
    /// walking `String.UTF8View` byte by byte was the slowest part of a push.
    private func copy(_ string: String, to offset: inout Int, isName: Bool, known: Bool) -> Bool {
        let copied: Int? = string.utf8.withContiguousStorageIfAvailable { bytes in
            guard known || (isName ? bytes.allSatisfy(Self.isTokenCharacter) : bytes.allSatisfy(Self.mayBeInValue)) else {
                return -1
            }
            if let source = bytes.baseAddress { (text + offset).update(from: source, count: bytes.count) }
            return bytes.count
        }
        if let copied {
            guard copied >= 0 else { return false }
            offset += copied
            return true
        }
        for byte in string.utf8 {
            guard known || (isName ? Self.isTokenCharacter(byte) : Self.mayBeInValue(byte)) else { return false }
            text[offset] = byte
            offset += 1
        }
        return true
    }

    /// RFC 9110 `tchar`: what a field name may consist of. Two 64-bit masks of
    /// the ASCII bytes that qualify: a shift and a test per byte, where a switch
    /// over ranges branched several times.
    @inline(__always)
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        byte < 64 ? (tokenBelow64 >> UInt64(byte)) & 1 == 1 : byte < 128 && (tokenFrom64 >> UInt64(byte - 64)) & 1 == 1
    }

    private static let tokenBelow64: UInt64 = mask(of: "!#$%&'*+-.0123456789", offset: 0)
    private static let tokenFrom64: UInt64 = mask(of: "ABCDEFGHIJKLMNOPQRSTUVWXYZ^_`abcdefghijklmnopqrstuvwxyz|~", offset: 64)

    private static func mask(of characters: String, offset: UInt8) -> UInt64 {
        characters.utf8.reduce(0) { $0 | (1 << UInt64($1 - offset)) }
    }

    /// What a value may not hold: CR and LF would end the line and start another
    /// header; NUL would end it early.
    @inline(__always)
    static func mayBeInValue(_ byte: UInt8) -> Bool { byte != 0x0D && byte != 0x0A && byte != 0 }

    /// The lines as libcurl will read them, following the list.
    var texts: [String] {
        var texts: [String] = []
        var node = list
        while let current = node {
            texts.append(String(cString: current.pointee.data))
            node = current.pointee.next
        }
        return texts
    }

    /// No header of the last request stays within libcurl's reach.
    mutating func clear() { list = nil }
}
