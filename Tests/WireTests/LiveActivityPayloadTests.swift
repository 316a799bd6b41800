import Foundation
import Testing
import Wire

@Suite struct LiveActivityPayloadTests {
    let encoder = PayloadEncoder()

    @Test(arguments: [
        ("update-low-priority", ["timestamp", "event", "content-state", "stale-date", "relevance-score"]),
        ("update-localized-alert", ["timestamp", "event", "content-state", "stale-date", "relevance-score", "alert"]),
        ("end-dismissal-date", ["timestamp", "event", "content-state", "dismissal-date", "relevance-score"]),
        ("start-push-to-start", [
            "timestamp", "event", "content-state", "stale-date", "relevance-score", "alert",
            "attributes-type", "attributes", "input-push-token",
        ]),
    ])
    func apsKeysAreExactlyTheAPNsNames(name: String, keys: [String]) throws {
        let payload = try #require(Samples.liveActivityPayloads.first { $0.name == name }?.payload)
        let body = try encoder.encode(payload)
        #expect(Array(try Samples.jsonObject(body).keys) == ["aps"])
        #expect(Set(try Samples.aps(body).keys) == Set(keys))
    }

    @Test func absentOptionalsAreOmittedRatherThanNull() throws {
        let payload = LiveActivityPayload(
            timestamp: Samples.timestamp,
            event: .update(alert: Alert(title: .plain("Victory!"), body: .localized(key: "alert.victory.body"))),
            contentState: Samples.routineState)
        let body = try encoder.encode(payload)
        let aps = try Samples.aps(body)
        #expect(Set(aps.keys) == ["timestamp", "event", "content-state", "alert"])
        let alert = try #require(aps["alert"] as? [String: Any])
        #expect(Set(alert.keys) == ["title", "body"])
        #expect(alert["body"] as? [String: String] == ["loc-key": "alert.victory.body"])
        #expect(!String(decoding: body, as: UTF8.self).contains("null"))
    }

    @Test func scalarsHaveTheTypesAPNsExpects() throws {
        let body = String(decoding: try encoder.encode(Samples.pushToStart), as: UTF8.self)
        #expect(body.contains(#""timestamp":1699996400}"#))
        #expect(body.contains(#""stale-date":1699996460,"#))
        #expect(body.contains(#""event":"start""#))
        #expect(body.contains(#""input-push-token":1"#))
        #expect(body.contains(#""attributes-type":"AdventureAttributes""#))
        #expect(body.contains(#""relevance-score":60"#))
        let end = String(decoding: try encoder.encode(Samples.endWithDismissal), as: UTF8.self)
        #expect(end.contains(#""event":"end""#))
        #expect(end.contains(#""dismissal-date":1700004200,"#))
    }

    @Test func attributesTypeIsTheSwiftNameOfTheAttributesType() {
        #expect(LiveActivityPayload.attributesType == "AdventureAttributes")
    }

    @Test func startWithoutUpdateTokenRequestLeavesInputPushTokenOut() throws {
        var payload = Samples.pushToStart
        payload.event = .start(attributes: Samples.attributes, alert: Samples.startAlert, requestsUpdateToken: false)
        let aps = try Samples.aps(try encoder.encode(payload))
        #expect(aps["input-push-token"] == nil)
        #expect(aps["attributes"] != nil)
    }

    @Test func alertTextIsAStringOrALocalizedObject() throws {
        let alert = Alert(
            title: .plain("Power Panda is knocked down!"),
            body: .localized(key: "alert.heroKnockedDown.body", args: ["Power Panda"]),
            sound: "HeroDown.caf")
        let text = String(decoding: try encoder.json(alert), as: UTF8.self)
        #expect(text == #"{"body":{"loc-args":["Power Panda"],"loc-key":"alert.heroKnockedDown.body"},"sound":"HeroDown.caf","title":"Power Panda is knocked down!"}"#)
        #expect(try JSONDecoder().decode(Alert.self, from: Data(text.utf8)) == alert)
    }

    @Test(arguments: Samples.liveActivityPayloads)
    func decodingGivesBackThePayload(name: String, payload: LiveActivityPayload) throws {
        #expect(try JSONDecoder().decode(LiveActivityPayload.self, from: try encoder.encode(payload)) == payload)
    }

    // MARK: - Wrong combinations

    /// A valid payload's `aps` with keys changed, as a body to decode.
    static func body(from payload: LiveActivityPayload, changing change: (inout [String: Any]) -> Void) throws -> Data {
        var aps = try Samples.aps(try PayloadEncoder().encode(payload))
        change(&aps)
        return try JSONSerialization.data(withJSONObject: ["aps": aps])
    }

    @Test(arguments: [
        ("start without alert", Samples.pushToStart, { @Sendable (aps: inout [String: Any]) in aps["alert"] = nil },
         "event `start` requires `alert`"),
        ("start without attributes", Samples.pushToStart, { aps in aps["attributes"] = nil },
         "event `start` requires `attributes`"),
        ("start with a foreign attributes-type", Samples.pushToStart, { aps in aps["attributes-type"] = "GameAttributes" },
         "requires `attributes-type` \"AdventureAttributes\", got \"GameAttributes\""),
        ("start with a dismissal date", Samples.pushToStart, { aps in aps["dismissal-date"] = 1_700_000_000 },
         "`dismissal-date` is not allowed with event `start`"),
        ("update with a dismissal date", Samples.updateLowPriority, { aps in aps["dismissal-date"] = 1_700_000_000 },
         "`dismissal-date` is not allowed with event `update`"),
        ("update with attributes", Samples.updateLowPriority, { aps in aps["attributes"] = ["adventureID": "adv-42"] },
         "`attributes` is not allowed with event `update`"),
        ("end with attributes-type", Samples.endWithDismissal, { aps in aps["attributes-type"] = "AdventureAttributes" },
         "`attributes-type` is not allowed with event `end`"),
        ("end with input-push-token", Samples.endWithDismissal, { aps in aps["input-push-token"] = 1 },
         "`input-push-token` is not allowed with event `end`"),
        ("start with input-push-token 2", Samples.pushToStart, { aps in aps["input-push-token"] = 2 },
         "`input-push-token` must be 1, got 2"),
        ("an unknown event", Samples.updateLowPriority, { aps in aps["event"] = "pause" },
         "`event` must be start, update or end, got \"pause\""),
    ] as [(String, LiveActivityPayload, @Sendable (inout [String: Any]) -> Void, String)])
    func wrongCombinationIsRejectedWithAClearError(
        situation: String, payload: LiveActivityPayload, change: @Sendable (inout [String: Any]) -> Void, message: String
    ) throws {
        let body = try Self.body(from: payload, changing: change)
        let error = #expect(throws: PayloadError.self, "\(situation)") {
            try JSONDecoder().decode(LiveActivityPayload.self, from: body)
        }
        #expect(error?.description.contains(message) == true, "\(situation): \(String(describing: error))")
    }

    // MARK: - Values the widget can't show

    @Test(arguments: [
        ("currentHealthLevel above 1", { @Sendable (p: inout LiveActivityPayload) in p.contentState.currentHealthLevel = 1.5 },
         "`content-state.currentHealthLevel` must be within 0…1, got 1.5"),
        ("a hero's health not a number", { p in p.contentState.heroes[1].healthLevel = .nan },
         "`content-state.heroes[1].healthLevel` must be within 0…1"),
        ("boss health below 0", { p in p.contentState.boss.healthLevel = -0.1 },
         "`content-state.boss.healthLevel` must be within 0…1, got -0.1"),
        ("negative boss position", { p in p.contentState.boss.position = -1 },
         "`content-state.boss.position` must be 0 or more"),
        ("negative potions", { p in p.contentState.potions = -1 },
         "`content-state.potions` must be 0 or more"),
        ("infinite relevance", { p in p.relevanceScore = .infinity },
         "`relevance-score` must be a finite number"),
        ("a hero outside the party", { p in
            var attributes = Samples.attributes
            attributes.heroID = "octo"
            p.event = .start(attributes: attributes, alert: Samples.startAlert)
        }, "`attributes.heroID` \"octo\" is not in `attributes.party`"),
        ("a boss past the route", { p in p.contentState.boss.position = 3 },
         "`content-state.boss.position` 3 is past the 3 bosses"),
    ] as [(String, @Sendable (inout LiveActivityPayload) -> Void, String)])
    func valueOutsideItsRangeIsRejected(
        situation: String, change: @Sendable (inout LiveActivityPayload) -> Void, message: String
    ) throws {
        var payload = Samples.pushToStart
        change(&payload)
        let error = #expect(throws: PayloadError.self, "\(situation)") { try encoder.encode(payload) }
        #expect(error?.description.contains(message) == true, "\(situation): \(String(describing: error))")
    }
}
