import Foundation
import Game

/// An event as the JSON text the store and session files hold: its own `Codable`
/// form, keys sorted, nothing between tokens, `/` escaped (as `JSONEncoder` and
/// the store write it). Comparing this text with the saved text is how a replay
/// checks an 8-hour log in well under a second: decoding 150,000 saved events with
/// `JSONDecoder` alone takes longer. Only the shapes events use are supported (a
/// flat object of strings and whole numbers); anything else falls back to
/// `JSONEncoder`, which is slower but writes the same text.
enum CanonicalJSON {
    static func text(of event: GameEvent) -> String {
        let encoder = FlatObjectEncoder()
        do {
            try event.encode(to: encoder)
            if !encoder.unsupported { return encoder.text() }
        } catch {}
        let fallback = JSONEncoder()
        fallback.outputFormatting = .sortedKeys
        return (try? fallback.encode(event)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }


    static func quoted(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "/": out += "\\/"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case let control where control.value < 0x20:
                out += String(format: "\\u%04x", control.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

private struct Unsupported: Error {}

/// Collects one flat object's fields; nested values must be single strings or numbers.
private final class FlatObjectEncoder: Encoder {
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]
    var fields: [(key: String, value: String)] = []
    /// Set when a value encodes itself through a single-value container.
    var single: String?
    /// Set when something asked for a shape this encoder does not write.
    var unsupported = false

    func text() -> String {
        "{" + fields.sorted { $0.key < $1.key }.map { CanonicalJSON.quoted($0.key) + ":" + $0.value }
            .joined(separator: ",") + "}"
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(FlatKeyedContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        unsupported = true
        return UnsupportedContainer()
    }
    func singleValueContainer() -> any SingleValueEncodingContainer { ValueCapture(encoder: self) }
}

private struct FlatKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: FlatObjectEncoder
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws { encoder.fields.append((key.stringValue, "null")) }
    mutating func encode(_ value: String, forKey key: Key) throws {
        encoder.fields.append((key.stringValue, CanonicalJSON.quoted(value)))
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { encoder.fields.append((key.stringValue, String(value))) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { encoder.fields.append((key.stringValue, String(value))) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        switch value {
        case let string as String: try encode(string, forKey: key)
        case let number as Int: try encode(number, forKey: key)
        case let flag as Bool: try encode(flag, forKey: key)
        default:
            let nested = FlatObjectEncoder()
            try value.encode(to: nested)
            guard let single = nested.single, nested.fields.isEmpty, !nested.unsupported else { throw Unsupported() }
            encoder.fields.append((key.stringValue, single))
        }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type,
                                                        forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        encoder.unsupported = true
        return KeyedEncodingContainer(FlatKeyedContainer<NestedKey>(encoder: FlatObjectEncoder()))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder.unsupported = true
        return UnsupportedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        encoder.unsupported = true
        return FlatObjectEncoder()
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder() }
}

private struct ValueCapture: SingleValueEncodingContainer {
    let encoder: FlatObjectEncoder
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() throws { encoder.single = "null" }
    mutating func encode(_ value: String) throws { encoder.single = CanonicalJSON.quoted(value) }
    mutating func encode(_ value: Int) throws { encoder.single = String(value) }
    mutating func encode(_ value: Bool) throws { encoder.single = String(value) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        switch value {
        case let string as String: try encode(string)
        case let number as Int: try encode(number)
        case let flag as Bool: try encode(flag)
        default: throw Unsupported()
        }
    }
}

/// Lists never occur in an event; asking for one marks the encoder unsupported.
private struct UnsupportedContainer: UnkeyedEncodingContainer {
    var codingPath: [any CodingKey] { [] }
    var count: Int { 0 }
    mutating func encodeNil() throws { throw Unsupported() }
    mutating func encode<T: Encodable>(_ value: T) throws { throw Unsupported() }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(FlatKeyedContainer<NestedKey>(encoder: FlatObjectEncoder()))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { UnsupportedContainer() }
    mutating func superEncoder() -> any Encoder { FlatObjectEncoder() }
}
