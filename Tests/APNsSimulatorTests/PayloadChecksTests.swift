import APNs
import APNsSimulator
import Foundation
import Testing
import Vocabulary

/// A body and the words its `detail` must contain.
struct PayloadCase: Sendable, CustomTestStringConvertible {
    var name: String
    var pushType: PushType = .liveactivity
    var body: String
    var detail: String

    var testDescription: String { name }
}

private let state = #""content-state":{"currentHealthLevel":1.0,"eventDescription":"x"}"#
private let startExtras = #""attributes-type":"AdventureAttributes","attributes":{"hero":{}},"alert":{"title":"t","body":"b"}"#

private let payloadCases: [PayloadCase] = [
    PayloadCase(name: "not JSON", body: "{aps:", detail: "not valid JSON"),
    PayloadCase(name: "truncated JSON", body: #"{"aps":{"event":"update""#, detail: "not valid JSON"),
    PayloadCase(name: "trailing garbage", body: #"{"aps":{}} x"#, detail: "not valid JSON"),
    PayloadCase(name: "an array", pushType: .alert, body: "[1,2]", detail: "must be a JSON object, not an array"),
    PayloadCase(name: "a string", pushType: .pushtotalk, body: #""hello""#, detail: "not a string"),
    PayloadCase(name: "no aps", body: #"{"event":"update"}"#, detail: "needs an \"aps\" object"),
    PayloadCase(name: "aps an array", body: #"{"aps":[]}"#, detail: "\"aps\" must be an object"),
    PayloadCase(name: "no event", body: #"{"aps":{"timestamp":1,\#(state)}}"#, detail: "aps.event is missing"),
    PayloadCase(name: "unknown event", body: #"{"aps":{"event":"begin","timestamp":1,\#(state)}}"#,
                detail: "aps.event must be \"start\", \"update\" or \"end\"; got \"begin\""),
    PayloadCase(name: "no timestamp", body: #"{"aps":{"event":"update",\#(state)}}"#, detail: "aps.timestamp is missing"),
    PayloadCase(name: "timestamp as a string", body: #"{"aps":{"event":"update","timestamp":"1700000000",\#(state)}}"#,
                detail: "aps.timestamp must be an integer (unix seconds of this state), not a string"),
    PayloadCase(name: "fractional timestamp", body: #"{"aps":{"event":"update","timestamp":1700000000.5,\#(state)}}"#,
                detail: "aps.timestamp must be an integer"),
    PayloadCase(name: "no content-state", body: #"{"aps":{"event":"update","timestamp":1}}"#, detail: "aps.content-state is missing"),
    PayloadCase(name: "content-state an array", body: #"{"aps":{"event":"end","timestamp":1,"content-state":[]}}"#,
                detail: "aps.content-state must be an object, not an array"),
    PayloadCase(name: "start without attributes-type",
                body: #"{"aps":{"event":"start","timestamp":1,\#(state),"attributes":{},"alert":{"title":"t"}}}"#,
                detail: "aps.attributes-type"),
    PayloadCase(name: "start without attributes",
                body: #"{"aps":{"event":"start","timestamp":1,\#(state),"attributes-type":"A","alert":{"title":"t"}}}"#,
                detail: "aps.attributes is missing; it must be an object when event is \"start\""),
    PayloadCase(name: "start without alert",
                body: #"{"aps":{"event":"start","timestamp":1,\#(state),"attributes-type":"A","attributes":{}}}"#,
                detail: "aps.alert is required when event is \"start\""),
    PayloadCase(name: "stale-date as a string", body: #"{"aps":{"event":"update","timestamp":1,\#(state),"stale-date":"soon"}}"#,
                detail: "aps.stale-date must be an integer"),
    PayloadCase(name: "fractional dismissal-date", body: #"{"aps":{"event":"end","timestamp":1,\#(state),"dismissal-date":1.5}}"#,
                detail: "aps.dismissal-date must be an integer"),
    PayloadCase(name: "relevance-score as a string",
                body: #"{"aps":{"event":"start","timestamp":1,\#(state),\#(startExtras),"relevance-score":"high"}}"#,
                detail: "aps.relevance-score must be a number"),
    PayloadCase(name: "input-push-channel on an update",
                body: #"{"aps":{"event":"update","timestamp":1,\#(state),"input-push-channel":"YQ=="}}"#,
                detail: "aps.input-push-channel goes with event \"start\""),
    PayloadCase(name: "input-push-channel not a string",
                body: #"{"aps":{"event":"start","timestamp":1,\#(state),\#(startExtras),"input-push-channel":7}}"#,
                detail: "aps.input-push-channel must be a channel id"),
    PayloadCase(name: "input-push-channel with input-push-token",
                body: #"{"aps":{"event":"start","timestamp":1,\#(state),\#(startExtras),"input-push-channel":"YQ==","input-push-token":1}}"#,
                detail: "exclude each other"),
    PayloadCase(name: "nested too deep", pushType: .alert, body: String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
                detail: "nested deeper than 64"),
]

@Suite("Payload checks")
struct PayloadChecksTests {
    @Test(arguments: payloadCases)
    func rejectsWithBadPayloadAndAPreciseDetail(_ testCase: PayloadCase) throws {
        var request = Fixtures.request(testCase.pushType, payload: testCase.body)
        request.body = Data(testCase.body.utf8)
        var connection = ConnectionTokenState()
        let verdict = PushRequestChecks.verdict(for: request, rules: Fixtures.rules, connection: &connection, now: Fixtures.now)
        let rejection = try #require(verdict.rejection)
        #expect(rejection.status == 400)
        #expect(rejection.reason.description == "BadPayload")
        let detail = try #require(rejection.detail)
        #expect(detail.contains(testCase.detail), "\(detail)")

        let body = try #require(try JSONSerialization.jsonObject(with: rejection.responseBody) as? [String: Any])
        #expect(body["reason"] as? String == "BadPayload")
        #expect(body["detail"] as? String == detail)
    }

    @Test func pushToTalkNeedsNoLiveActivityFields() {
        var connection = ConnectionTokenState()
        let request = Fixtures.request(.pushtotalk, payload: #"{"aps":{},"leaveChannel":true}"#)
        #expect(PushRequestChecks.verdict(for: request, rules: Fixtures.rules, connection: &connection, now: Fixtures.now).isAccepted)
    }

    @Test func startAcceptsALocalizedAlertAndInputPushToken() {
        let body = #"""
        {"aps":{"event":"start","timestamp":1700000000,\#(state),"attributes-type":"AdventureAttributes","attributes":{"hero":{"name":"Octo"}},"alert":{"title":{"loc-key":"%@ joins!","loc-args":["Octo"]},"body":{"loc-key":"Go"}},"input-push-token":1,"relevance-score":0.5,"stale-date":1700000600}}
        """#
        var connection = ConnectionTokenState()
        let verdict = PushRequestChecks.verdict(for: Fixtures.request(.liveactivity, payload: body), rules: Fixtures.rules,
                                                connection: &connection, now: Fixtures.now)
        #expect(verdict.isAccepted, "\(verdict)")
    }

    @Test func aStartMayNameTheChannelItsActivityListensOn() {
        let body = #"{"aps":{"event":"start","timestamp":1700000000,\#(state),\#(startExtras),"input-push-channel":"dHN0LXNyY2gtY2hubA=="}}"#
        var connection = ConnectionTokenState()
        let verdict = PushRequestChecks.verdict(for: Fixtures.request(.liveactivity, payload: body), rules: Fixtures.rules,
                                                connection: &connection, now: Fixtures.now)
        guard case .accepted(let push) = verdict else {
            Issue.record("refused: \(verdict)")
            return
        }
        #expect(push.inputPushChannel == "dHN0LXNyY2gtY2hubA==")
    }

    @Test func unicodeEscapesAndNonASCIIAreValidJSON() {
        let body = #"{"aps":{"event":"update","timestamp":1,"content-state":{"eventDescription":"Octo \ud83d\udc19 \u00e9 🐼 \"quoted\" \\ \/"}}}"#
        var connection = ConnectionTokenState()
        #expect(PushRequestChecks.verdict(for: Fixtures.request(.liveactivity, payload: body), rules: Fixtures.rules,
                                          connection: &connection, now: Fixtures.now).isAccepted)
    }

    static let invalidJSON: [String] = [
        #"{"a":01}"#, #"{"a":1.}"#, #"{"a":-}"#, #"{"a":tru}"#, #"{"a":"\x"}"#, #"{"a":"\ud83d"}"#, "{\"a\":\"line\nbreak\"}",
        #"{"a":1,}"#, #"{'a':1}"#, #"{"a" 1}"#,
    ]

    @Test(arguments: invalidJSON)
    func invalidJSONIsRefused(_ body: String) {
        var connection = ConnectionTokenState()
        let verdict = PushRequestChecks.verdict(for: Fixtures.request(.alert, payload: body), rules: Fixtures.rules,
                                                connection: &connection, now: Fixtures.now)
        #expect(verdict.rejection?.detail?.contains("not valid JSON") == true, "\(verdict)")
    }
}
