import Foundation
import PushPolicy
import Store
import Vocabulary
import Wire

extension OutboxMessage {
    /// The body that tells a listening member's phone that `speaker` has a new
    /// message: the system shows who is talking at once, and the app fetches the
    /// audio. The same for every listener, so it is encoded once.
    static func announcement(of transmission: TransmissionID, in channel: ChannelID,
                             by speaker: PushToTalkPayload.ActiveSpeaker) throws -> Data {
        try PayloadEncoder().encode(PushToTalkPayload(activeSpeaker: speaker, transmissionID: transmission.rawValue,
                                                      channelID: channel.rawValue))
    }

    /// Push To Talk pushes are `pushtotalk`, priority 10, and expire at once: a late
    /// "someone is talking" is worse than none.
    static func transmission(_ announcement: Data, by speakerName: String, to member: ChannelMemberID,
                             topic: String) -> OutboxMessage {
        OutboxMessage(target: .pushToTalk(member), pushType: .pushtotalk, topic: topic, priority: .high, expiration: 0,
                      payload: announcement, reason: "\(speakerName) is talking", hasAlert: false, isEnd: false)
    }

    /// Tells a member's phone to leave the channel. An end: never superseded, and
    /// the member's token is dropped once it is done with.
    static func leaveChannel(_ member: ChannelMember, topic: String, reason: String) -> OutboxMessage? {
        guard let payload = try? PayloadEncoder().encode(PushToTalkPayload(channelID: member.channel.rawValue, leaveChannel: true))
        else { return nil }
        return OutboxMessage(target: .pushToTalk(member.id), pushType: .pushtotalk, topic: topic, priority: .high,
                             expiration: 0, payload: payload, reason: reason, hasAlert: false, isEnd: true)
    }
}
