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
        for (index, (name, value)) in headers.enumerated() {
            let start = offset
            guard !name.isEmpty, copy(name, to: &offset, accepting: Self.isTokenCharacter) else { return name }
            if value.isEmpty {
                text[offset] = UInt8(ascii: ";")
                offset += 1
            } else {
                text[offset] = UInt8(ascii: ":")
                text[offset + 1] = UInt8(ascii: " ")
                offset += 2
                guard copy(value, to: &offset, accepting: { $0 != 0x0D && $0 != 0x0A && $0 != 0 }) else { return name }
            }
            text[offset] = 0
            offset += 1
            let line = UnsafeMutableRawPointer(text + start).assumingMemoryBound(to: CChar.self)
            nodes[index] = curl_slist(data: line, next: index + 1 < headers.count ? nodes + index + 1 : nil)
        }
        list = nodes
        return nil
    }

    /// Copies the string's UTF-8 into `text` at `offset` if every byte is
    /// acceptable. From the string's own buffer when it has one (native strings
    /// do): walking `String.UTF8View` byte by byte was the slowest part of a push.
    private func copy(_ string: String, to offset: inout Int, accepting acceptable: (UInt8) -> Bool) -> Bool {
        let copied: Int? = string.utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes where !acceptable(byte) { return -1 }
            if let source = bytes.baseAddress { (text + offset).update(from: source, count: bytes.count) }
            return bytes.count
        }
        if let copied {
            guard copied >= 0 else { return false }
            offset += copied
            return true
        }
        for byte in string.utf8 {
            guard acceptable(byte) else { return false }
            text[offset] = byte
            offset += 1
        }
        return true
    }

    /// RFC 9110 `tchar`: what a field name may consist of.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

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

    /// No header of the last request stays reachable.
    mutating func clear() { list = nil }
}
