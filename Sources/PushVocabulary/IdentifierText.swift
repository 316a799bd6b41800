/// An id's text as a node keeps it. A UUID written in one case (the ids
/// ActivityKit gives Live Activities, the server's own adventure ids) is kept
/// as its 16 bytes and that case, inside the value, rather than as 36
/// characters on the heap (some 80 bytes each): a node holds several such ids
/// for every running adventure. Any other text is kept as it is. Either way
/// `string` gives back exactly the text it was made from, and two are equal
/// exactly when their texts are.
public struct IdentifierText: Hashable, Sendable {
    private enum Storage: Hashable, Sendable {
        case uuid(high: UInt64, low: UInt64, uppercase: Bool)
        case text(String)
    }

    private let storage: Storage

    public init(_ text: String) {
        storage = Self.parseUUID(text) ?? .text(text)
    }

    public var string: String {
        switch storage {
        case .text(let text):
            return text
        case .uuid(let high, let low, let uppercase):
            return String(unsafeUninitializedCapacity: 36) { buffer in
                let digits: StaticString = uppercase ? "0123456789ABCDEF" : "0123456789abcdef"
                var position = 0
                for nibble in 0..<32 {
                    if nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20 {
                        buffer[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    let word = nibble < 16 ? high : low
                    let value = Int(truncatingIfNeeded: word >> UInt64(60 - (nibble % 16) * 4)) & 0xF
                    buffer[position] = digits.utf8Start[value]
                    position += 1
                }
                return 36
            }
        }
    }

    /// Whether the text is kept as a UUID's bytes.
    var isCompact: Bool {
        if case .uuid = storage { return true }
        return false
    }

    /// 8-4-4-4-12 hex digits, all letters in one case; a text with no letters is
    /// kept as lowercase (it reads the same either way).
    private static func parseUUID(_ text: String) -> Storage? {
        guard text.utf8.count == 36 else { return nil }
        var contiguous = text
        return contiguous.withUTF8(parse)
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Storage? {
        var high: UInt64 = 0, low: UInt64 = 0
        var upper = false, lower = false
        var nibble = 0
        for (index, byte) in bytes.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return nil }
                continue
            }
            let value: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = byte - UInt8(ascii: "a") + 10; lower = true
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = byte - UInt8(ascii: "A") + 10; upper = true
            default: return nil
            }
            if nibble < 16 { high = high << 4 | UInt64(value) } else { low = low << 4 | UInt64(value) }
            nibble += 1
        }
        guard !(upper && lower) else { return nil }
        return .uuid(high: high, low: low, uppercase: upper)
    }
}
