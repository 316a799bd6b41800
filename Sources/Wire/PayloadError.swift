import Foundation

/// Why a payload can't be sent (or, when decoding, why APNs or the phone would
/// reject it).
public enum PayloadError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Keys that don't belong together, e.g. `dismissal-date` on an `update`.
    case invalidCombination(String)
    /// A value the widget can't show or JSON can't carry, e.g. a health level of 1.5.
    case invalidValue(String)
    /// Over the size limit even after shortening what may be shortened.
    case tooLarge(PayloadTooLarge)

    public var description: String {
        switch self {
        case .invalidCombination(let reason): "invalid payload: \(reason)"
        case .invalidValue(let reason): "invalid payload: \(reason)"
        case .tooLarge(let report): report.description
        }
    }
}

/// Where the bytes of an oversized payload went, so whoever designs the content
/// knows what to trim: a long route name, too many heroes, a verbose alert.
public struct PayloadTooLarge: Hashable, Sendable, CustomStringConvertible {
    public struct Part: Hashable, Sendable {
        /// The JSON key, e.g. `attributes` or `content-state.heroes`.
        public var name: String
        /// Bytes of the part's JSON value.
        public var bytes: Int

        public init(name: String, bytes: Int) {
            self.name = name
            self.bytes = bytes
        }
    }

    /// "Live Activity" or "Push To Talk".
    public var payloadKind: String
    /// The size of the smallest body this payload could be shortened to.
    public var bytes: Int
    public var limit: Int
    /// The sizable parts, largest first.
    public var parts: [Part]
    /// The largest field inside the largest part.
    public var largestField: Part?
    /// A field already cut to "…" before giving up, if any.
    public var shortenedField: String?

    public var largestPart: Part? { parts.first }
    public var excess: Int { bytes - limit }

    public var description: String {
        var text = "\(payloadKind) payload is \(bytes) bytes, \(excess) over the \(limit)-byte limit"
        if let shortenedField {
            text += " even with `\(shortenedField)` cut to \"…\""
        }
        guard let largest = largestPart else { return text }
        text += "; the largest part is `\(largest.name)` at \(largest.bytes) bytes"
        if let largestField {
            text += ", most of it `\(largestField.name)` at \(largestField.bytes) bytes"
        }
        let others = parts.dropFirst().map { "`\($0.name)` \($0.bytes) bytes" }
        if !others.isEmpty {
            text += " (then " + others.joined(separator: ", ") + ")"
        }
        return text
    }
}

/// A part of a payload worth naming in a size report, with its own fields.
struct MeasuredPart {
    var name: String
    var value: any Encodable
    var fields: [(String, any Encodable)]
}

/// A payload that can say which of its parts take the most room.
protocol MeasuredPayload: Encodable {
    static var kindName: String { get }
    var measuredParts: [MeasuredPart] { get }
}
