import PushPolicy
import Store

extension OutboxMessage {
    /// The push telling `member`'s phone to leave the channel, as the walkie-talkie
    /// policy makes it; nil if it cannot be encoded, and the member is then simply
    /// marked as gone.
    public static func leaveChannel(_ member: ChannelMember, bundleID: String, reason: String) -> OutboxMessage? {
        (try? WalkieTalkiePolicy.leaveChannel(member.channel, reason: reason)).map {
            OutboxMessage($0, to: member.id, bundleID: bundleID)
        }
    }
}
