import Foundation

/// Whole seconds since 1970-01-01 UTC: the clock of `timestamp`, `stale-date`
/// and `dismissal-date` in `aps`, encoded as a JSON integer.
///
/// It is a type of its own rather than a `Date` because the content state's
/// dates are encoded the Swift default way (seconds since 2001); with one type
/// for both, a date could silently land 31 years off on the phone.
///
/// It deliberately can't be written as a bare integer literal: `staleDate: 60`
/// would mean one minute after 1970, not one minute from now.
public struct UnixTimestamp: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    public var seconds: Int

    public init(seconds: Int) {
        self.seconds = seconds
    }

    /// Rounds down, so a state is never stamped later than it happened.
    public init(_ date: Date) {
        self.seconds = Int(date.timeIntervalSince1970.rounded(.down))
    }

    public var date: Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }

    public func adding(seconds delta: Int) -> UnixTimestamp {
        UnixTimestamp(seconds: seconds + delta)
    }

    public init(from decoder: any Decoder) throws {
        seconds = try decoder.singleValueContainer().decode(Int.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(seconds)
    }

    public static func < (lhs: UnixTimestamp, rhs: UnixTimestamp) -> Bool { lhs.seconds < rhs.seconds }

    public var description: String { String(seconds) }
}
