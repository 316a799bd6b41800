import Foundation

/// Turns payloads into the exact bytes sent to APNs, within the size limits.
///
/// The JSON is deterministic (sorted keys, slashes unescaped, Swift's default
/// date strategy), so the same payload always gives the same bytes and golden
/// files can compare them exactly. The default date strategy is deliberate:
/// the phone decodes the content state with a default `JSONDecoder`.
public struct PayloadEncoder: Sendable {
    public init() {}

    /// The body of a Live Activity push, at most `LiveActivityPayload.sizeLimit`
    /// bytes. When the payload is too large, `eventDescription` is shortened
    /// (see `fitted(_:)`); when that is not enough, throws
    /// `PayloadError.tooLarge` naming the largest part.
    public func encode(_ payload: LiveActivityPayload) throws -> Data {
        try fit(payload).body
    }

    /// The payload `encode(_:)` actually sends, with the body it encodes to: the
    /// payload unchanged when it fits, otherwise with
    /// `contentState.eventDescription` cut at a character boundary and ended
    /// with "…". For callers that keep the sent state and send the body: one
    /// encoding for both.
    public func fitted(_ payload: LiveActivityPayload) throws -> (payload: LiveActivityPayload, body: Data) {
        try fit(payload)
    }

    /// The body of a Push To Talk push, at most `PushToTalkPayload.sizeLimit`
    /// bytes; nothing in it is shortened, so too large throws.
    public func encode(_ payload: PushToTalkPayload) throws -> Data {
        let body = PayloadWriter.json(payload)
        guard body.count <= PushToTalkPayload.sizeLimit else {
            throw PayloadError.tooLarge(try report(payload, bytes: body.count, limit: PushToTalkPayload.sizeLimit))
        }
        return body
    }

    /// The deterministic JSON of any value, without a size check: for content
    /// states or attributes stored on their own.
    public func json(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    // MARK: - Fitting into the limit

    private func fit(_ payload: LiveActivityPayload) throws -> (payload: LiveActivityPayload, body: Data) {
        try payload.validate()
        let limit = LiveActivityPayload.sizeLimit
        let body = PayloadWriter.json(payload)
        if body.count <= limit {
            return (payload, body)
        }
        let description = Array(payload.contentState.eventDescription)
        guard !description.isEmpty else {
            throw PayloadError.tooLarge(try report(payload, bytes: body.count, limit: limit))
        }

        func shortened(keeping count: Int) -> LiveActivityPayload {
            var candidate = payload
            candidate.contentState.eventDescription = Self.shortened(description, keeping: count)
            return candidate
        }

        let shortest = shortened(keeping: 0)
        let shortestBody = PayloadWriter.json(shortest)
        guard shortestBody.count <= limit else {
            throw PayloadError.tooLarge(try report(
                shortest, bytes: shortestBody.count, limit: limit,
                shortenedField: "content-state.eventDescription"))
        }
        // The longest prefix that fits. Keeping all characters is known not to
        // fit, and each extra character only adds bytes, so a binary search over
        // the count of kept characters finds it in a dozen encodings.
        var best = (payload: shortest, body: shortestBody)
        var fits = 0, fitsNot = description.count
        while fitsNot - fits > 1 {
            let middle = (fits + fitsNot) / 2
            let candidate = shortened(keeping: middle)
            let candidateBody = PayloadWriter.json(candidate)
            if candidateBody.count <= limit {
                fits = middle
                best = (candidate, candidateBody)
            } else {
                fitsNot = middle
            }
        }
        return best
    }

    /// The first `count` characters (grapheme clusters, so an emoji or a
    /// combining sequence is kept whole or dropped whole) and "…".
    static func shortened(_ characters: [Character], keeping count: Int) -> String {
        var kept = String(characters.prefix(count))
        while let last = kept.last, last.isWhitespace {
            kept.removeLast()
        }
        return kept + "…"
    }

    // MARK: - Size report

    private func report<Payload: MeasuredPayload>(
        _ payload: Payload, bytes: Int, limit: Int, shortenedField: String? = nil
    ) throws -> PayloadTooLarge {
        var measured: [(part: MeasuredPart, bytes: Int)] = []
        for part in payload.measuredParts {
            measured.append((part, try json(part.value).count))
        }
        measured.sort { $0.bytes > $1.bytes }
        var largestField: PayloadTooLarge.Part?
        if let largest = measured.first {
            for (name, value) in largest.part.fields {
                let size = try json(value).count
                if size > largestField?.bytes ?? -1 {
                    largestField = PayloadTooLarge.Part(name: "\(largest.part.name).\(name)", bytes: size)
                }
            }
        }
        return PayloadTooLarge(
            payloadKind: Payload.kindName, bytes: bytes, limit: limit,
            parts: measured.map { PayloadTooLarge.Part(name: $0.part.name, bytes: $0.bytes) },
            largestField: largestField, shortenedField: shortenedField)
    }
}
