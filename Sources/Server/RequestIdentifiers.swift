import Foundation
import Hummingbird
import Store
import Vocabulary

/// An id as a request carries it, in a path or in a body, checked the same way
/// in both after percent-decoding. The app makes some (activity and device ids:
/// any 1…128 code points without control characters, so a space, a slash or any
/// script round-trip; anything else is refused by name, 422). The server makes
/// the others (UUIDs): another value names nothing, 404, without asking the store.
protocol RequestIdentifier: StringIdentifier {
    /// What refusals call it: "party", "activity id".
    static var kind: String { get }
    static var isMadeByTheApp: Bool { get }
}

extension RequestIdentifier {
    /// `text` as this id, or `refusal(what is wrong)` for an app-made id that
    /// cannot be one; a server-made id that cannot be one is a 404.
    static func checked<Refusal: Error>(_ text: String, refusal: (String) -> Refusal) throws -> Self {
        if isMadeByTheApp {
            do {
                try StoredValueLimits.checkClientID(text, kind: kind)
            } catch {
                throw refusal("is refused: \(error.description)")
            }
        } else if UUID(uuidString: text) == nil {
            throw APIError(StoreError.notFound(kind, id: text))
        }
        return Self(text)
    }
}

extension PartyID: RequestIdentifier {
    static var kind: String { "party" }
    static var isMadeByTheApp: Bool { false }
}

extension AdventureID: RequestIdentifier {
    static var kind: String { "adventure" }
    static var isMadeByTheApp: Bool { false }
}

extension TransmissionID: RequestIdentifier {
    static var kind: String { "transmission" }
    static var isMadeByTheApp: Bool { false }
}

extension ActivityID: RequestIdentifier {
    static var kind: String { "an activity id" }
    static var isMadeByTheApp: Bool { true }
}

extension DeviceID: RequestIdentifier {
    static var kind: String { "a device id" }
    static var isMadeByTheApp: Bool { true }
}

/// An id in the request's path, as it came. The handler reads it with `checked()`
/// once it knows who is asking: a request without a key is a 401 whatever its
/// path holds.
struct PathParameter<ID: RequestIdentifier>: Sendable {
    let name: String
    let raw: String

    /// The id the client meant: percent-decoded (`my%20phone` is "my phone", `%2F`
    /// a slash inside the id, UTF-8 any script), then checked. The router matches
    /// the raw path, so an encoded slash never splits a segment.
    func checked() throws -> ID {
        guard let decoded = raw.removingPercentEncoding else { throw APIError.malformedPath(name) }
        return try ID.checked(decoded) { problem in APIError.invalidField(name, problem) }
    }
}

extension Parameters {
    /// The path parameter `name`, which the route's template guarantees.
    func path<ID: RequestIdentifier>(_ name: String, as type: ID.Type = ID.self) -> PathParameter<ID> {
        PathParameter(name: name, raw: self.get(name) ?? "")
    }
}
