import Foundation
import Testing
import Wire

@Suite struct PushToTalkPayloadTests {
    let encoder = PayloadEncoder()

    @Test func customKeysSitAtTheRootBesideAnEmptyAps() throws {
        let body = try encoder.encode(Samples.pushToTalk)
        let root = try Samples.jsonObject(body)
        #expect(Set(root.keys) == ["aps", "activeSpeaker", "transmissionID", "channelID", "leaveChannel"])
        #expect((root["aps"] as? [String: Any])?.isEmpty == true)
        let speaker = try #require(root["activeSpeaker"] as? [String: String])
        #expect(speaker == ["playerID": "player-1", "playerName": "Mai", "heroName": "Power Panda", "avatar": "🐼"])
    }

    @Test func leaveOnlyPushCarriesNothingElse() throws {
        let body = try encoder.encode(PushToTalkPayload(leaveChannel: true))
        #expect(String(decoding: body, as: UTF8.self) == #"{"aps":{},"leaveChannel":true}"#)
    }

    @Test func decodingGivesBackThePayload() throws {
        let decoded = try JSONDecoder().decode(PushToTalkPayload.self, from: try encoder.encode(Samples.pushToTalk))
        #expect(decoded == Samples.pushToTalk)
        let minimal = try JSONDecoder().decode(PushToTalkPayload.self, from: Data(#"{"aps":{}}"#.utf8))
        #expect(minimal == PushToTalkPayload())
    }
}
