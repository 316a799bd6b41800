import Foundation
import Game
@testable import LiveView
import Store
import Testing
import Vocabulary
import Wire

/// The stream's format, its cursor, and which card a push belongs to.
@Suite struct LiveWireTests {
    @Test func anEventIsWrittenAsTheStandardSaysWithEachLineOfItsDataOnADataLine() {
        let event = ServerSentEvent(id: "4:0.17", event: "push", data: #"{"a":1}"#)
        #expect(event.text == "id: 4:0.17\nevent: push\ndata: {\"a\":1}\n\n")
        #expect(ServerSentEvent(data: "one\ntwo\r\nthree").text == "data: one\ndata: two\ndata: three\n\n")
        // A line break in an id or a name would end the field early: it is left out.
        #expect(ServerSentEvent(id: "1\n2", event: "a\rb", data: "").text == "id: 12\nevent: ab\ndata: \n\n")
        #expect(ServerSentEvent.retry(milliseconds: 1000) == "retry: 1000\n\n")
    }

    @Test func aCursorGoesThroughTextAndBackAndRefusesWhatTheServerDidNotWrite() {
        let cursor = LiveCursor(tick: 42, pushLog: PushLogCursor(batch: 7_345, entry: 1534))
        #expect(cursor.description == "42:7345.1534")
        #expect(LiveCursor(cursor.description) == cursor)
        #expect(LiveCursor("0:0.0") == .start)
        for text in ["", "42", "42:", "42:1", "x:0.1", "-1:0.1", "1:0.-1", "1:0.1:2", "1 :0.1", "１:0.1", "1:0.99999999999999999999"] {
            #expect(LiveCursor(text) == nil, "\(text)")
        }
        #expect(PushLogCursor(batch: 1, entry: 0) > PushLogCursor(batch: 0, entry: 99))
    }

    @Test func anAnswerIsClassifiedAsTheAPNsClientClassifiesIt() {
        typealias Push = LiveMessage.Push
        #expect(Push.answer(status: 200, reason: nil) == .delivered)
        #expect(Push.answer(status: 410, reason: "Unregistered") == .gone)
        #expect(Push.answer(status: 410, reason: "ExpiredToken") == .gone)
        #expect(Push.answer(status: 400, reason: "BadDeviceToken") == .gone)
        #expect(Push.answer(status: 400, reason: "DeviceTokenNotForTopic") == .gone)
        #expect(Push.answer(status: 400, reason: "BadTopic") == .refused)
        #expect(Push.answer(status: 403, reason: "InvalidProviderToken") == .refused)
        #expect(Push.answer(status: nil, reason: "gave up after 5 attempts: the connection was lost") == .refused)
    }

    @Test func aPushGoesToTheCardOfTheHeroWhosePhoneGotIt() throws {
        let roster = [PartyMember(player: PlayerID("p1"), hero: "power-panda"), PartyMember(player: PlayerID("p2"), hero: "egghead")]
        var directory = LiveCardDirectory(roster: roster)
        #expect(directory.cards.map(\.key) == ["hero:power-panda", "hero:egghead"])
        #expect(directory.cards.allSatisfy { $0.language == nil && $0.kind == .member })

        // An update to an activity: its hero's card, once the activity is known.
        let update = Data(#"{"aps":{"event":"update"}}"#.utf8)
        #expect(directory.route(.liveActivity(ActivityID("a-2")), payload: update) == .unknownActivity(ActivityID("a-2")))
        #expect(directory.learn(hero: "egghead", language: "vi", activity: ActivityID("a-2"))?.language == "vi")
        #expect(directory.learn(hero: "egghead", language: "vi", activity: ActivityID("a-2")) == nil, "nothing changed")
        #expect(directory.route(.liveActivity(ActivityID("a-2")), payload: update) == .card("hero:egghead"))

        // A push-to-start goes to a device; the hero is in the attributes the phone received.
        let attributes = AdventureAttributes(adventureID: "adv", heroID: "power-panda", routeName: "Woods",
                                             party: [HeroSummary(id: "power-panda", name: "Power Panda", avatar: "🐼")],
                                             bosses: [BossSummary(id: "wolf", name: "Wolf", avatar: "🐺")], endsAt: Date(timeIntervalSince1970: 0))
        let state = AdventureAttributes.ContentState(
            currentHealthLevel: 1, eventDescription: "", heroes: [], boss: BossStatus(id: "wolf", healthLevel: 1, isEnraged: false, position: 0),
            latestEvent: EventText(key: "event.x", args: []), potions: 3)
        let start = try PayloadEncoder().encode(LiveActivityPayload(
            timestamp: UnixTimestamp(seconds: 1), event: .start(attributes: attributes, alert: Alert(title: .plain("t"), body: .plain("b"))),
            contentState: state))
        #expect(directory.route(.pushToStart(DeviceID("phone-1")), payload: start) == .card("hero:power-panda"))
        #expect(directory.route(.pushToStart(DeviceID("phone-1")), payload: update) == .none)
        #expect(directory.route(.pushToTalk(ChannelMemberID("m")), payload: update) == .none)
    }
}
