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

    @Test func aBroadcastIsClassifiedAsAChannelRequestIsAndAChannelAPNsNoLongerHasIsGone() {
        typealias Push = LiveMessage.Push
        #expect(Push.answer(status: 200, reason: nil, broadcast: true) == .delivered)
        #expect(Push.answer(status: 400, reason: "ChannelNotRegistered", broadcast: true) == .gone)
        #expect(Push.answer(status: 410, reason: "ChannelNotRegistered", broadcast: true) == .gone)
        #expect(Push.answer(status: 400, reason: "BadChannelId", broadcast: true) == .gone)
        #expect(Push.answer(status: 503, reason: "ServiceUnavailable", broadcast: true) == .refused)
        #expect(Push.answer(status: 429, reason: "TooManyRequests", broadcast: true) == .refused)
        #expect(Push.answer(status: 403, reason: "FeatureNotEnabled", broadcast: true) == .refused)
        #expect(Push.answer(status: nil, reason: "the connection was lost", broadcast: true) == .refused)
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
        let start = try Self.start(heroID: "power-panda")
        #expect(directory.route(.pushToStart(DeviceID("phone-1")), payload: start) == .card("hero:power-panda"))
        #expect(directory.route(.pushToStart(DeviceID("phone-1")), payload: update) == .none)
        #expect(directory.route(.pushToTalk(ChannelMemberID("m")), payload: update) == .none)
    }

    /// A push-to-start's body whose attributes name `heroID` ("" for a follower's activity).
    static func start(heroID: String) throws -> Data {
        let attributes = AdventureAttributes(adventureID: "adv", heroID: heroID, routeName: "Woods",
                                             party: [HeroSummary(id: "power-panda", name: "Power Panda", avatar: "🐼")],
                                             bosses: [BossSummary(id: "wolf", name: "Wolf", avatar: "🐺")], endsAt: Date(timeIntervalSince1970: 0))
        let state = AdventureAttributes.ContentState(
            currentHealthLevel: 1, eventDescription: "", heroes: [], boss: BossStatus(id: "wolf", healthLevel: 1, isEnraged: false, position: 0),
            latestEvent: EventText(key: "event.x", args: []), potions: 3)
        return try PayloadEncoder().encode(LiveActivityPayload(
            timestamp: UnixTimestamp(seconds: 1), event: .start(attributes: attributes, alert: Alert(title: .plain("t"), body: .plain("b"))),
            contentState: state))
    }

    static func follower(_ player: String, _ delivery: FollowerDelivery, _ language: String, device: String? = nil) -> Follower {
        Follower(adventure: "adv", player: PlayerID(player), delivery: delivery, language: language, device: device.map(DeviceID.init),
                 followedAt: Date(timeIntervalSince1970: 0))
    }

    @Test func eachFollowersChannelHasACardInItsLanguageWithItsFollowersAndItsBroadcastsGoThere() {
        var directory = LiveCardDirectory(roster: [PartyMember(player: PlayerID("p1"), hero: "power-panda")])
        let update = Data(#"{"aps":{"event":"update"}}"#.utf8)
        let vi = FollowerChannelID("channel-vi"), ko = FollowerChannelID("channel-ko")
        // A broadcast to a channel the page has not heard of: the followers are read again.
        #expect(directory.route(.followerChannel(vi), payload: update) == .unknownFollowers)

        let channels = [FollowerChannel(id: ko, adventure: "adv", language: "ko", state: .wanted, storagePolicy: .mostRecentMessageStored),
                        FollowerChannel(id: vi, adventure: "adv", language: "vi", state: .open, apnsID: "dmk=",
                                        storagePolicy: .mostRecentMessageStored)]
        var followers = [Self.follower("vy", .channel, "vi"), Self.follower("an", .channel, "vi"), Self.follower("min", .channel, "ko"),
                         Self.follower("sam", .token, "en", device: "sam-phone")]
        let learned = directory.learn(followers: followers, channels: channels)
        #expect(learned.map(\.key) == ["channel:channel-ko", "channel:channel-vi", "followers:en"])
        #expect(learned.map(\.kind) == [.followerChannel, .followerChannel, .tokenFollowers])
        #expect(learned.map(\.language) == ["ko", "vi", "en"])
        #expect(learned.map(\.followers) == [1, 2, 1])
        #expect(learned.map(\.channelState) == ["wanted", "open", nil])
        #expect(learned.allSatisfy { $0.hero == nil }, "no hero of their own")
        #expect(directory.cards.map(\.key) == ["hero:power-panda", "channel:channel-ko", "channel:channel-vi", "followers:en"])
        #expect(directory.route(.followerChannel(vi), payload: update) == .card("channel:channel-vi"))
        #expect(directory.route(.followerChannel(ko), payload: update) == .card("channel:channel-ko"))

        // Read again with nothing new: nothing to tell the page. A follower leaves: the count changes.
        #expect(directory.learn(followers: followers, channels: channels).isEmpty)
        followers.remove(at: 1)
        #expect(directory.learn(followers: followers, channels: channels).map(\.followers) == [1])
    }

    @Test func theFollowersBeforeIOS18OfALanguageShareOneCardFedByTheirPushToStartsAndTheirActivities() throws {
        var directory = LiveCardDirectory(roster: [PartyMember(player: PlayerID("p1"), hero: "power-panda")])
        let update = Data(#"{"aps":{"event":"update"}}"#.utf8)
        let followersStart = try Self.start(heroID: "")
        // A heroless push-to-start is a follower's: unknown until the followers are read.
        #expect(directory.route(.pushToStart("sam-phone"), payload: followersStart) == .unknownFollowers)
        let followers = [Self.follower("sam", .token, "en", device: "sam-phone"), Self.follower("kim", .token, "en", device: "kim-phone"),
                         Self.follower("vy", .token, "vi", device: "vy-phone")]
        let learned = directory.learn(followers: followers, channels: [])
        #expect(learned.map(\.key) == ["followers:en", "followers:vi"])
        #expect(learned.map(\.followers) == [2, 1])
        #expect(directory.route(.pushToStart("sam-phone"), payload: followersStart) == .card("followers:en"))
        #expect(directory.route(.pushToStart("kim-phone"), payload: followersStart) == .card("followers:en"))
        #expect(directory.route(.pushToStart("vy-phone"), payload: followersStart) == .card("followers:vi"))

        // Their activities, registered without a hero, join the card of their language.
        #expect(directory.route(.liveActivity("sam-activity"), payload: update) == .unknownActivity("sam-activity"))
        let activity = LiveActivity(id: "sam-activity", player: "sam", adventure: "adv", hero: nil, frequentUpdates: false, locale: "en",
                                    status: .active, ledger: .init(), createdAt: Date(timeIntervalSince1970: 0))
        #expect(directory.learn(activity) == nil, "the card is there already")
        #expect(directory.route(.liveActivity("sam-activity"), payload: update) == .card("followers:en"))
        // A language whose only per-token follower's activity comes first gets its card then.
        let korean = LiveActivity(id: "min-activity", player: "min", adventure: "adv", hero: nil, frequentUpdates: false, locale: "ko",
                                  status: .active, ledger: .init(), createdAt: Date(timeIntervalSince1970: 0))
        #expect(directory.learn(korean)?.key == "followers:ko")
        #expect(directory.cards.map(\.key) == ["hero:power-panda", "followers:en", "followers:vi", "followers:ko"])
        #expect(directory.cards.filter { $0.kind == .tokenFollowers }.count == 3, "one card per language, not one per phone")
    }
}
