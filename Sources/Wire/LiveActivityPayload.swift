import Foundation

/// The JSON body of a Live Activity push: `{"aps": {…}}`.
///
/// Which keys may appear together depends on the event, so the event carries
/// them: only `start` has attributes, and it can't be built without an alert;
/// only `end` has a dismissal date. Decoding (for the APNs simulator and for
/// tests) rejects the combinations the types rule out, with a `PayloadError`.
public struct LiveActivityPayload: Codable, Hashable, Sendable {
    /// APNs refuses a larger body with `413 PayloadTooLarge`.
    public static let sizeLimit = 4096

    /// The `attributes-type` of push-to-start: the Swift name of the app's
    /// attributes type, derived from the type so a rename can't leave it stale.
    public static let attributesType = String(describing: AdventureAttributes.self)

    public enum Event: Hashable, Sendable {
        /// Push-to-start (iOS 17.2+): creates the activity on the device, so it
        /// needs the static attributes, and the system requires an alert.
        /// `requestsUpdateToken` sends `input-push-token: 1` (iOS 18+), asking
        /// the new activity for a token the server can send updates to.
        case start(attributes: AdventureAttributes, alert: Alert, requestsUpdateToken: Bool = true)
        case update(alert: Alert? = nil)
        /// `dismissalDate`: when the ended activity leaves the Lock Screen; a
        /// past date removes it at once, `nil` lets the system decide (up to 4 hours).
        case end(dismissalDate: UnixTimestamp? = nil, alert: Alert? = nil)

        /// The value of the `event` key.
        public var name: String {
            switch self {
            case .start: "start"
            case .update: "update"
            case .end: "end"
            }
        }
    }

    /// When this state was true. The device keeps only the newest state, so per
    /// activity each push needs a strictly larger timestamp than the last.
    public var timestamp: UnixTimestamp
    public var event: Event
    public var contentState: AdventureAttributes.ContentState
    /// After this moment the widget marks the content as possibly out of date.
    public var staleDate: UnixTimestamp?
    /// Higher sorts first on the Lock Screen; the highest gets the Dynamic Island.
    public var relevanceScore: Double?

    public init(
        timestamp: UnixTimestamp, event: Event, contentState: AdventureAttributes.ContentState,
        staleDate: UnixTimestamp? = nil, relevanceScore: Double? = nil
    ) {
        self.timestamp = timestamp
        self.event = event
        self.contentState = contentState
        self.staleDate = staleDate
        self.relevanceScore = relevanceScore
    }

    public var alert: Alert? {
        switch event {
        case .start(_, let alert, _): alert
        case .update(let alert), .end(_, let alert): alert
        }
    }

    public var attributes: AdventureAttributes? {
        if case .start(let attributes, _, _) = event { attributes } else { nil }
    }

    public var dismissalDate: UnixTimestamp? {
        if case .end(let date, _) = event { date } else { nil }
    }

    private var requestsUpdateToken: Bool {
        if case .start(_, _, let requests) = event { requests } else { false }
    }

    // MARK: - JSON

    private enum RootKeys: String, CodingKey {
        case aps
    }

    private enum APSKeys: String, CodingKey, CaseIterable {
        case timestamp
        case event
        case contentState = "content-state"
        case staleDate = "stale-date"
        case dismissalDate = "dismissal-date"
        case relevanceScore = "relevance-score"
        case alert
        case attributesType = "attributes-type"
        case attributes
        case inputPushToken = "input-push-token"
    }

    public func encode(to encoder: any Encoder) throws {
        var root = encoder.container(keyedBy: RootKeys.self)
        var aps = root.nestedContainer(keyedBy: APSKeys.self, forKey: .aps)
        try aps.encode(timestamp, forKey: .timestamp)
        try aps.encode(event.name, forKey: .event)
        try aps.encode(contentState, forKey: .contentState)
        try aps.encodeIfPresent(staleDate, forKey: .staleDate)
        try aps.encodeIfPresent(dismissalDate, forKey: .dismissalDate)
        try aps.encodeIfPresent(relevanceScore, forKey: .relevanceScore)
        try aps.encodeIfPresent(alert, forKey: .alert)
        if let attributes {
            try aps.encode(Self.attributesType, forKey: .attributesType)
            try aps.encode(attributes, forKey: .attributes)
        }
        if requestsUpdateToken {
            try aps.encode(1, forKey: .inputPushToken)
        }
    }

    public init(from decoder: any Decoder) throws {
        let aps = try decoder.container(keyedBy: RootKeys.self).nestedContainer(keyedBy: APSKeys.self, forKey: .aps)
        let eventName = try aps.decode(String.self, forKey: .event)
        let present = Set(APSKeys.allCases.filter { aps.contains($0) }.map(\.rawValue))
        let alert = try aps.decodeIfPresent(Alert.self, forKey: .alert)

        func reject(_ keys: [APSKeys]) throws {
            if let key = keys.first(where: { present.contains($0.rawValue) }) {
                throw PayloadError.invalidCombination("`\(key.rawValue)` is not allowed with event `\(eventName)`")
            }
        }

        switch eventName {
        case "start":
            try reject([.dismissalDate])
            guard let alert else {
                throw PayloadError.invalidCombination("event `start` requires `alert`")
            }
            guard let attributes = try aps.decodeIfPresent(AdventureAttributes.self, forKey: .attributes) else {
                throw PayloadError.invalidCombination("event `start` requires `attributes`")
            }
            let type = try aps.decodeIfPresent(String.self, forKey: .attributesType)
            guard type == Self.attributesType else {
                throw PayloadError.invalidCombination(
                    "event `start` requires `attributes-type` \"\(Self.attributesType)\", got \(type.map { "\"\($0)\"" } ?? "none")")
            }
            let token = try aps.decodeIfPresent(Int.self, forKey: .inputPushToken)
            if let token, token != 1 {
                throw PayloadError.invalidValue("`input-push-token` must be 1, got \(token)")
            }
            event = .start(attributes: attributes, alert: alert, requestsUpdateToken: token == 1)
        case "update":
            try reject([.dismissalDate, .attributes, .attributesType, .inputPushToken])
            event = .update(alert: alert)
        case "end":
            try reject([.attributes, .attributesType, .inputPushToken])
            event = .end(dismissalDate: try aps.decodeIfPresent(UnixTimestamp.self, forKey: .dismissalDate), alert: alert)
        default:
            throw PayloadError.invalidValue("`event` must be start, update or end, got \"\(eventName)\"")
        }
        timestamp = try aps.decode(UnixTimestamp.self, forKey: .timestamp)
        contentState = try aps.decode(AdventureAttributes.ContentState.self, forKey: .contentState)
        staleDate = try aps.decodeIfPresent(UnixTimestamp.self, forKey: .staleDate)
        relevanceScore = try aps.decodeIfPresent(Double.self, forKey: .relevanceScore)
        try validate()
    }

    // MARK: - Values

    /// Rejects values the widget can't show sensibly or JSON can't carry
    /// (NaN, infinity). Encoding and decoding both run it.
    public func validate() throws {
        func level(_ value: Double, _ field: String) throws {
            guard value.isFinite, (0...1).contains(value) else {
                throw PayloadError.invalidValue("`\(field)` must be within 0…1, got \(value)")
            }
        }
        let state = contentState
        try level(state.currentHealthLevel, "content-state.currentHealthLevel")
        for (index, hero) in state.heroes.enumerated() {
            try level(hero.healthLevel, "content-state.heroes[\(index)].healthLevel")
        }
        try level(state.boss.healthLevel, "content-state.boss.healthLevel")
        guard state.boss.position >= 0 else {
            throw PayloadError.invalidValue("`content-state.boss.position` must be 0 or more, got \(state.boss.position)")
        }
        guard state.potions >= 0 else {
            throw PayloadError.invalidValue("`content-state.potions` must be 0 or more, got \(state.potions)")
        }
        if let relevanceScore, !relevanceScore.isFinite {
            throw PayloadError.invalidValue("`relevance-score` must be a finite number, got \(relevanceScore)")
        }
        if let attributes {
            // Empty: a follower's activity, which shows the party but plays no hero.
            guard attributes.heroID.isEmpty || attributes.party.contains(where: { $0.id == attributes.heroID }) else {
                throw PayloadError.invalidValue("`attributes.heroID` \"\(attributes.heroID)\" is not in `attributes.party`")
            }
            guard state.boss.position < attributes.bosses.count else {
                throw PayloadError.invalidValue(
                    "`content-state.boss.position` \(state.boss.position) is past the \(attributes.bosses.count) bosses of `attributes.bosses`")
            }
        }
    }
}

extension LiveActivityPayload: MeasuredPayload {
    static let kindName = "Live Activity"

    var measuredParts: [MeasuredPart] {
        var parts = [MeasuredPart(name: "content-state", value: contentState, fields: [
            ("heroes", contentState.heroes), ("boss", contentState.boss),
            ("latestEvent", contentState.latestEvent), ("eventDescription", contentState.eventDescription),
        ])]
        if let attributes {
            parts.append(MeasuredPart(name: "attributes", value: attributes, fields: [
                ("party", attributes.party), ("bosses", attributes.bosses), ("routeName", attributes.routeName),
                ("adventureID", attributes.adventureID), ("heroID", attributes.heroID),
            ]))
        }
        if let alert {
            var fields: [(String, any Encodable)] = [("title", alert.title), ("body", alert.body)]
            if let sound = alert.sound { fields.append(("sound", sound)) }
            parts.append(MeasuredPart(name: "alert", value: alert, fields: fields))
        }
        return parts
    }
}
