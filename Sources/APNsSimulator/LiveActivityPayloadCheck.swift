/// The `aps` fields ActivityKit needs to act on a Live Activity push. APNs itself
/// forwards a malformed one and the phone silently ignores it; the simulator refuses
/// it with `BadPayload` and a detail naming the field, so the mistake is visible.
enum LiveActivityPayloadCheck {
    static let events: Set<String> = ["start", "update", "end"]
    /// "You can't use broadcast push notifications to start a Live Activity."
    static let broadcastEvents: Set<String> = ["update", "end"]

    /// Returns the channel in `input-push-channel`, which a start may name for the
    /// new activity to listen on (iOS 18) instead of asking for an update token.
    @discardableResult
    static func check(_ payload: JSONValue, events allowed: Set<String> = events) throws(PushRejection) -> String? {
        guard let aps = payload["aps"] else { throw .badPayload("a liveactivity push needs an \"aps\" object") }
        guard case .object = aps else { throw .badPayload("\"aps\" must be an object, not \(aps.kindName)") }

        let expected = allowed == broadcastEvents
            ? #""update" or "end" (a broadcast cannot start a Live Activity)"#
            : #""start", "update" or "end""#
        guard let eventValue = aps["event"] else {
            throw .badPayload("aps.event is missing; it must be \(expected)")
        }
        guard case .string(let event) = eventValue, allowed.contains(event) else {
            throw .badPayload("aps.event must be \(expected); got \(describe(eventValue))")
        }
        try requireInteger(aps, "timestamp", required: true, meaning: "unix seconds of this state")
        try requireObject(aps, "content-state")

        if event == "start" {
            guard case .string(let type)? = aps["attributes-type"], !type.isEmpty else {
                throw .badPayload("aps.attributes-type must name the activity's attributes type when event is \"start\"")
            }
            try requireObject(aps, "attributes", because: "when event is \"start\"")
            switch aps["alert"] {
            case .object?, .string?: break
            case nil: throw .badPayload("aps.alert is required when event is \"start\"")
            case let other?: throw .badPayload("aps.alert must be an object, not \(other.kindName)")
            }
        }
        try requireInteger(aps, "stale-date", required: false, meaning: "unix seconds")
        try requireInteger(aps, "dismissal-date", required: false, meaning: "unix seconds")
        if let score = aps["relevance-score"] {
            switch score {
            case .integer, .number: break
            default: throw .badPayload("aps.relevance-score must be a number, not \(score.kindName)")
            }
        }
        guard let channelValue = aps["input-push-channel"] else { return nil }
        guard event == "start" else { throw .badPayload("aps.input-push-channel goes with event \"start\"") }
        guard case .string(let channel) = channelValue, !channel.isEmpty else {
            throw .badPayload("aps.input-push-channel must be a channel id (a string), not \(channelValue.kindName)")
        }
        // An activity has one push type: updates by token or on a channel.
        guard aps["input-push-token"] == nil else {
            throw .badPayload("aps.input-push-channel and aps.input-push-token exclude each other")
        }
        return channel
    }

    private static func requireInteger(_ aps: JSONValue, _ key: String, required: Bool, meaning: String) throws(PushRejection) {
        guard let value = aps[key] else {
            if required { throw .badPayload("aps.\(key) is missing; it must be an integer (\(meaning))") }
            return
        }
        guard case .integer = value else {
            throw .badPayload("aps.\(key) must be an integer (\(meaning)), not \(value.kindName)")
        }
    }

    private static func requireObject(_ aps: JSONValue, _ key: String, because condition: String? = nil) throws(PushRejection) {
        let when = condition.map { " " + $0 } ?? ""
        guard let value = aps[key] else { throw .badPayload("aps.\(key) is missing; it must be an object\(when)") }
        guard case .object = value else { throw .badPayload("aps.\(key) must be an object\(when), not \(value.kindName)") }
    }

    private static func describe(_ value: JSONValue) -> String {
        if case .string(let text) = value { return "\"\(text.prefix(40))\"" }
        return value.kindName
    }
}
