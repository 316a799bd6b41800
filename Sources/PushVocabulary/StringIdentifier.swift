/// Typed identifiers: an adventure id can't be passed where an activity id is
/// expected. Each encodes as its plain string, so JSON and the database see text.
public protocol StringIdentifier: Hashable, Comparable, Codable, Sendable,
    ExpressibleByStringLiteral, CustomStringConvertible
{
    var rawValue: String { get }
    init(_ rawValue: String)
}

extension StringIdentifier {
    public init(stringLiteral value: String) { self.init(value) }
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { rawValue }
}

/// Identifiers numbered by the store in the order it made them.
public protocol SequenceIdentifier: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    var rawValue: Int64 { get }
    init(_ rawValue: Int64)
}

extension SequenceIdentifier {
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(Int64.self))
    }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { String(rawValue) }
}
