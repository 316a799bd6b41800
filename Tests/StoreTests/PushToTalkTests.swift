import Foundation
import Game
import PushPolicy
import Store
import StoreTestSupport
import Testing
import Vocabulary

@Suite(.closesStores) struct PushToTalkTests {
    private func talk(_ member: ChannelMember, _ transmission: Transmission) -> OutboxMessage {
        OutboxMessage(target: .pushToTalk(member.id), pushType: .pushtotalk, topic: "app.rangers.voip-ptt", priority: .high,
                      expiration: 0, payload: Data(#"{"aps":{},"transmissionID":"\#(transmission.id)"}"#.utf8),
                      reason: "new audio from \(transmission.speaker)", hasAlert: false, isEnd: false, supersedable: false)
    }

    private func leave(_ member: ChannelMember) -> OutboxMessage {
        OutboxMessage(target: .pushToTalk(member.id), pushType: .pushtotalk, topic: "app.rangers.voip-ptt", priority: .high,
                      expiration: 0, payload: Data(#"{"aps":{},"leaveChannel":true}"#.utf8), reason: "leave channel",
                      hasAlert: false, isEnd: true, supersedable: false)
    }

    /// The trio with everyone joined to the party's channel, each with their own token.
    private func joined(_ engine: StoreEngine) async throws -> (any RangersStore, Trio, Channel) {
        try await joined(engine.database())
    }

    private func joined(_ database: TestDatabase) async throws -> (any RangersStore, Trio, Channel) {
        let store = try await database.open()
        let trio = try await Trio.make(in: store)
        let channel = try await store.channel(of: trio.party.id)
        let joinedAt = Date()
        for (index, player) in trio.players.enumerated() {
            // Push To Talk tokens vary in length: one of them is longer than 32 bytes.
            let token = try PushToken(hex: String(repeating: String(format: "%02x", 200 + index), count: 32 + index * 8))
            // A second apart: members are listed in the order they joined, and two
            // joins in the same millisecond would be ordered by their random ids.
            try await store.joinChannel(channel.id, player: player.id, token: token,
                                        at: joinedAt.addingTimeInterval(TimeInterval(index)))
        }
        return (store, trio, channel)
    }

    @Test(arguments: StoreEngine.available) func aTransmissionIsPushedToEveryOtherMemberAndFetchedByMembersOnly(engine: StoreEngine) async throws {
        let (store, trio, channel) = try await joined(engine)
        let audio = Data((0..<4000).map { UInt8($0 % 251) })
        let sent = try await store.recordTransmission(
            NewTransmission(channel: channel.id, speaker: trio.players[0].id, contentType: "audio/aac",
                            durationMilliseconds: 3000, audio: audio), push: talk)
        #expect(sent.hero == "power-panda")

        let pushes = try await store.claimOutbox(limit: 10)
        let members = try await store.channelMembers(of: channel.id)
        let others = members.filter { $0.player != trio.players[0].id }
        #expect(Set(pushes.map(\.message.target)) == Set(others.map { PushTarget.pushToTalk($0.id) }))
        #expect(Set(pushes.map(\.token)) == Set(others.compactMap(\.token)))

        #expect(try await store.transmission(sent.id, for: trio.players[2].id).audio == audio)
        let stranger = try await store.createPlayer(name: "Eve").player.id
        await #expect(throws: StoreError.forbidden("only members of the party can use its channel")) {
            try await store.transmission(sent.id, for: stranger)
        }
        await #expect(throws: StoreError.forbidden("only members of the party can use its channel")) {
            try await store.joinChannel(channel.id, player: stranger, token: Tokens.make(5))
        }
    }

    @Test(arguments: StoreEngine.available) func oneSpeakerAtATime(engine: StoreEngine) async throws {
        let (store, trio, channel) = try await joined(engine)
        let now = Date()
        var uploaded: [TransmissionID] = []
        func upload(_ speaker: Int, at time: Date) async throws -> Transmission {
            uploaded.append(.random())
            return try await store.recordTransmission(
                NewTransmission(id: uploaded.last!, channel: channel.id, speaker: trio.players[speaker].id, contentType: "audio/aac",
                                durationMilliseconds: 2000, audio: Data([1, 2, 3])), at: time, push: talk)
        }
        _ = try await upload(0, at: now)
        await #expect(throws: WalkieTalkiePolicy.Refusal.someoneElseIsSpeaking(trio.players[0].id)) {
            try await upload(1, at: now.addingTimeInterval(1))
        }
        #expect(try await store.pendingOutboxCount() == 2)
        // The speaker may go on; another member may talk once they are done.
        _ = try await upload(0, at: now.addingTimeInterval(1.5))
        _ = try await upload(1, at: now.addingTimeInterval(3.6))

        // Only a listener talks, and no one in a closed channel; neither stores anything.
        try await store.leaveChannel(channel.id, player: trio.players[2].id)
        await #expect(throws: WalkieTalkiePolicy.Refusal.notListening) { try await upload(2, at: now.addingTimeInterval(9)) }
        try await store.closeChannel(channel.id, at: now.addingTimeInterval(10), leaveChannelPush: leave)
        await #expect(throws: WalkieTalkiePolicy.Refusal.channelClosed) { try await upload(0, at: now.addingTimeInterval(11)) }
        var stored: [TransmissionID] = []
        for id in uploaded where (try? await store.transmission(id, for: trio.players[0].id)) != nil { stored.append(id) }
        #expect(stored == [uploaded[0], uploaded[2], uploaded[3]])
    }

    @Test(arguments: StoreEngine.available) func aMemberToldToLeaveKeepsTheirTokenUntilThePushIsSent(engine: StoreEngine) async throws {
        let database = try await engine.database()
        let (store, trio, channel) = try await joined(database)
        try await store.leaveParty(trio.party.id, player: trio.players[1].id, leaveChannelPush: leave)
        let listeners = try await store.channelMembers(of: channel.id)
        #expect(listeners.map(\.player) == [trio.players[0].id, trio.players[2].id])

        // A transmission now reaches only those still in the channel.
        try await store.recordTransmission(
            NewTransmission(channel: channel.id, speaker: trio.players[0].id, contentType: "audio/aac",
                            durationMilliseconds: 500, audio: Data([9])), push: talk)
        let pushes = try await store.claimOutbox(limit: 10)
        #expect(pushes.count == 2)
        let leavePush = try #require(pushes.first { $0.message.isEnd })
        try await store.recordDelivered(leavePush, apnsID: "ptt")
        let gone = try await database.rows(
            sqlite: "SELECT status, token FROM channelMember WHERE player = ?",
            postgres: "SELECT status, token FROM channel_member WHERE player = $1", [trio.players[1].id.rawValue])
        #expect(gone == [["left", nil]])
    }

    @Test(arguments: StoreEngine.available) func closingTheChannelSendsEveryoneOffAndRetentionRemovesOldAudio(engine: StoreEngine) async throws {
        let (store, trio, channel) = try await joined(engine)
        let old = Date().addingTimeInterval(-7200)
        let transmission = try await store.recordTransmission(
            NewTransmission(channel: channel.id, speaker: trio.players[2].id, contentType: "audio/aac",
                            durationMilliseconds: 500, audio: Data([7, 7])), at: old, push: talk)
        try await store.closeChannel(channel.id, leaveChannelPush: leave)
        #expect(try await store.channelMembers(of: channel.id).isEmpty)
        #expect(try await store.claimOutbox(limit: 10).filter(\.message.isEnd).count == 3)
        await #expect(throws: StoreError.conflict("channel \(channel.id) is closed")) {
            try await store.joinChannel(channel.id, player: trio.players[0].id, token: Tokens.make(1))
        }

        #expect(try await store.deleteAudio(recordedBefore: Date().addingTimeInterval(-3600)) == 1)
        let kept = try await store.transmission(transmission.id, for: trio.players[0].id)
        #expect(kept.audio == nil)
        #expect(kept.byteCount == 2)
    }
}
