import Foundation
import Game
import PushPolicy
import Testing
import Vocabulary
import Wire

@Suite struct QueuedPushRulesTests {
    @Test func onlyRoutineLiveActivityUpdatesGiveWayToNewerPushes() throws {
        let adventure = try PolicyFixtures.adventure()
        let run = try PolicyRun(adventure, pushToStart: adventure.setup.party.map { PushToStartRecipient(player: $0.player, hero: $0.hero) })
        for decision in run.startPushes + run.ticks.flatMap(\.decisions) {
            let expected = if case .liveActivity = decision.target { !decision.hasAlert && !decision.isEnd } else { false }
            #expect(QueuedPushRules.isSupersedable(decision) == expected)
        }
        // The run covered each kind: push-to-start, routine updates, alerts and ends.
        #expect(run.startPushes.allSatisfy { !QueuedPushRules.isSupersedable($0) })
        #expect(run.ticks.flatMap(\.decisions).contains { QueuedPushRules.isSupersedable($0) })
        #expect(run.ticks.flatMap(\.decisions).contains { $0.hasAlert && !QueuedPushRules.isSupersedable($0) })
        #expect(run.ticks.flatMap(\.decisions).contains { $0.isEnd && !QueuedPushRules.isSupersedable($0) })
    }

    @Test func aPushExpiresOnlyAfterItsExpirationAndNeverWhenItHasNone() {
        #expect(!QueuedPushRules.hasExpired(expiration: 100, at: 100))
        #expect(QueuedPushRules.hasExpired(expiration: 100, at: 101))
        #expect(!QueuedPushRules.hasExpired(expiration: 0, at: 1_000_000), "0 is APNs' 'now or never'")
    }
}

@Suite struct WalkieTalkiePolicyTests {
    let ana = PlayerID("ana"), bao = PlayerID("bao")

    @Test func oneSpeakerAtATimeInAnOpenChannelAmongListeners() {
        #expect(WalkieTalkiePolicy.refusal(speaker: ana, channelClosed: false, speakerIsListening: true, speakingNow: []) == nil)
        #expect(WalkieTalkiePolicy.refusal(speaker: ana, channelClosed: false, speakerIsListening: true, speakingNow: [ana]) == nil,
                "a speaker may follow their own message")
        #expect(WalkieTalkiePolicy.refusal(speaker: ana, channelClosed: false, speakerIsListening: true, speakingNow: [ana, bao])
                == .someoneElseIsSpeaking(bao))
        #expect(WalkieTalkiePolicy.refusal(speaker: ana, channelClosed: false, speakerIsListening: false, speakingNow: [])
                == .notListening)
        #expect(WalkieTalkiePolicy.refusal(speaker: ana, channelClosed: true, speakerIsListening: true, speakingNow: [bao])
                == .channelClosed)
    }

    @Test func aMessageHoldsTheChannelForItsLengthAndReachesTheOthers() {
        let start = Date(timeIntervalSince1970: 1_000)
        #expect(WalkieTalkiePolicy.speakingUntil(recordedAt: start, durationMilliseconds: 3_200) == start.addingTimeInterval(3.2))
        #expect(WalkieTalkiePolicy.hears(bao, messageOf: ana))
        #expect(!WalkieTalkiePolicy.hears(ana, messageOf: ana))
    }

    @Test func aMemberToldToLeaveGetsOnlyTheLeavePush() {
        #expect(WalkieTalkiePolicy.reaches(isListening: true, isLeaving: false, isLeavePush: false))
        #expect(WalkieTalkiePolicy.reaches(isListening: false, isLeaving: true, isLeavePush: true))
        #expect(!WalkieTalkiePolicy.reaches(isListening: false, isLeaving: true, isLeavePush: false))
        #expect(!WalkieTalkiePolicy.reaches(isListening: false, isLeaving: false, isLeavePush: true))
    }

    @Test func pushesArePushToTalkAtOnceOrNever() throws {
        let speaker = PushToTalkPayload.ActiveSpeaker(playerID: "ana", playerName: "Ana", heroName: "Power Panda", avatar: "🐼")
        let talk = try WalkieTalkiePolicy.announcement(of: "t1", in: "c1", by: speaker)
        let leave = try WalkieTalkiePolicy.leaveChannel("c1", reason: "the adventure ended")
        for push in [talk, leave] {
            #expect(push.pushType == .pushtotalk && push.priority == .high && push.expiration == 0)
        }
        #expect(!talk.isLeave && leave.isLeave)
        #expect(talk.reason == "Ana is talking")
        let body = try JSONSerialization.jsonObject(with: leave.body) as? [String: Any]
        #expect(body?["leaveChannel"] as? Bool == true && body?["channelID"] as? String == "c1")
        #expect(try PayloadEncoder().encode(PushToTalkPayload(activeSpeaker: speaker, transmissionID: "t1", channelID: "c1"))
                == talk.body)
    }
}
