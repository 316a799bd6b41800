import Foundation
import PushPolicy
import Store
import Testing
import Vocabulary

@Suite struct WalkieTalkieRulesTests {
    private let now = Date(timeIntervalSince1970: 1_000)

    private func upload(_ speaker: PlayerID = ada, milliseconds: Int = 1_500, audio: Data = Data([1])) throws -> NewTransmission {
        try NewTransmission(id: "t1", channel: "c1", speaker: speaker, contentType: "audio/aac",
                            durationMilliseconds: milliseconds, audio: audio)
    }

    private func listener(_ player: PlayerID) -> ChannelMember {
        ChannelMember(id: ChannelMemberID("m-\(player)"), channel: "c1", player: player, status: .joined, joinedAt: now)
    }

    @Test func anUploadHasAudioAndADuration() {
        // Checked as the value is made, before it reaches a store.
        #expect(refusal { try upload() } == nil)
        #expect(refusal { try upload(milliseconds: 0) } == .invalid("a transmission has audio and a positive duration"))
        #expect(refusal { try upload(audio: Data()) } == .invalid("a transmission has audio and a positive duration"))
    }

    @Test func onlyMembersUseTheChannelAndNoOneJoinsAClosedOne() throws {
        #expect(try WalkieTalkieRules.member(hero: panda) == panda)
        #expect(refusal { try WalkieTalkieRules.member(hero: nil) } == .forbidden("only members of the party can use its channel"))
        #expect(refusal { try WalkieTalkieRules.checkJoin("c1", closedAt: nil) } == nil)
        #expect(refusal { try WalkieTalkieRules.checkJoin("c1", closedAt: now) } == .conflict("channel c1 is closed"))
    }

    @Test func aTransmissionHoldsTheChannelForItsLengthAndReachesTheOtherListeners() throws {
        let listeners = [listener(ada), listener(bo), listener(cy)]
        let sent = try WalkieTalkieRules.transmit(try upload(), at: now, channelClosed: false, listeners: listeners,
                                                  speakingNow: [ada])
        #expect(sent.speakingUntil == now.addingTimeInterval(1.5))
        #expect(sent.recipients.map(\.player) == [bo, cy])
    }

    @Test func aTransmissionIsRefusedOnAClosedChannelByANonListenerOrOverAnotherSpeaker() throws {
        let listeners = [listener(ada), listener(bo)]
        func refusal(closed: Bool = false, speaker: PlayerID = ada,
                     speakingNow: [PlayerID] = []) throws -> WalkieTalkiePolicy.Refusal? {
            let new = try upload(speaker)
            do {
                _ = try WalkieTalkieRules.transmit(new, at: now, channelClosed: closed, listeners: listeners,
                                                   speakingNow: speakingNow)
                return nil
            } catch {
                return error
            }
        }
        #expect(try refusal(closed: true) == .channelClosed)
        #expect(try refusal(speaker: cy) == .notListening)
        #expect(try refusal(speakingNow: [bo]) == .someoneElseIsSpeaking(bo))
    }

    @Test func onlyAnEndPushToTalkIsALeavePushForItsMember() {
        func message(_ target: PushTarget, isEnd: Bool) -> OutboxMessage {
            OutboxMessage(target: target, pushType: .pushtotalk, topic: "app.voip-ptt", priority: .high, expiration: 0,
                          payload: Data("{}".utf8), reason: "test", hasAlert: false, isEnd: isEnd, supersedable: false)
        }
        let member = ChannelMemberID("m-1")
        #expect(message(.pushToTalk(member), isEnd: true).leavingMember == member)
        #expect(message(.pushToTalk(member), isEnd: false).leavingMember == nil, "a speaker's push")
        #expect(message(.liveActivity("a-1"), isEnd: true).leavingMember == nil, "an activity's end")
    }
}

@Suite struct OutboxRulesTests {
    @Test func anAnswerIsRecordedOnceWhileSentByTheStoreThatClaimedIt() {
        let push = OutboxID(7)
        #expect(OutboxRules.answerRefusal(push, state: "sending", holder: "node-a", claimant: "node-a") == nil)
        #expect(OutboxRules.answerRefusal(push, state: nil, holder: nil, claimant: "node-a") == .notFound("outbox row", id: "7"))
        #expect(OutboxRules.answerRefusal(push, state: "delivered", holder: "node-a", claimant: "node-a")
            == .conflict("outbox row 7 is delivered, not sending; its answer was recorded already or it was never claimed"))
        #expect(OutboxRules.answerRefusal(push, state: "sending", holder: "node-b", claimant: "node-a")
            == .conflict("outbox row 7 was claimed again after this claim was taken for abandoned"))
    }

    /// A settling update that changed nothing is refused as the row now reads,
    /// and as changed in between when it reads as still being sent by the claimant.
    @Test func anAnswerTheSettlingUpdateLeftIsRefusedWithTheRowsReason() {
        let push = OutboxID(7)
        #expect(OutboxRules.unsettledRefusal(push, state: "sent", holder: "node-a", claimant: "node-a")
            == OutboxRules.answerRefusal(push, state: "sent", holder: "node-a", claimant: "node-a"))
        #expect(OutboxRules.unsettledRefusal(push, state: nil, holder: nil, claimant: "node-a") == .notFound("outbox row", id: "7"))
        #expect(OutboxRules.unsettledRefusal(push, state: "sending", holder: "node-a", claimant: "node-a")
            == .conflict("outbox row 7 is no longer being sent by this store"))
    }
}

@Suite struct SettlementTests {
    @Test func eachAnswerSettlesItsPushAndLogsWhatAPNsSaid() {
        let sent = OutboxRules.settlement(of: .delivered(apnsID: "id-1", status: 200, attempts: 2))
        #expect(sent.state == .sent && sent.outcome == nil && sent.nextAttempt == nil)
        #expect(sent.log == OutboxRules.LogLine(status: 200, apnsID: "id-1", attempts: 2))

        let invalid = OutboxRules.settlement(of: .tokenInvalid(status: 410, reason: "Unregistered", since: nil))
        #expect(invalid.state == .failed && invalid.outcome == "token no longer valid: Unregistered")
        #expect(invalid.log?.reason == "Unregistered")

        let gone = OutboxRules.settlement(of: .channelGone(status: 400, reason: "BadChannelId"))
        #expect(gone.state == .failed && gone.outcome == "channel gone: BadChannelId")

        let later = Date(timeIntervalSince1970: 60)
        let retry = OutboxRules.settlement(of: .retryLater(at: later, reason: "TooManyRequests"))
        #expect(retry == OutboxRules.Settlement(state: .pending, outcome: "retrying: TooManyRequests", nextAttempt: later))

        let rejected = OutboxRules.settlement(of: .rejected(status: 400, reason: "BadTopic"))
        #expect(rejected.state == .failed && rejected.outcome == "BadTopic" && rejected.log?.status == 400)
    }
}

@Suite struct ClaimStepTests {
    @Test func anExpiredPushIsDroppedBeforeItsTargetIsLookedAtAndTheRestGoWhereTheirTargetSays() throws {
        let token = try PushToken(hex: String(repeating: "ab", count: 32))
        var lookedAt = false
        let expired = OutboxRules.claimStep(expiration: 99, at: 100) { lookedAt = true; return .token(token) }
        #expect(expired == .drop(reason: QueuedPushRules.expiredReason, finishesLeaving: false))
        #expect(!lookedAt)
        #expect(OutboxRules.claimStep(expiration: 0, at: 100) { .token(token) } == .send(.device(token)))
        #expect(OutboxRules.claimStep(expiration: 200, at: 100) { .channel("ch-1") } == .send(.channel("ch-1")))
        #expect(OutboxRules.claimStep(expiration: 200, at: 100) { .unreachable("the activity is ended") }
            == .drop(reason: "the activity is ended", finishesLeaving: true))
    }
}
