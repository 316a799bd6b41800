import Game
import Vocabulary

/// Values as both engines read them back from their columns, each with the one
/// refusal (`StoreError.corrupt`) for a stored value that no longer reads.
public enum StoredValues {
    public static func seed(_ text: String, ofAdventure adventure: String) throws(StoreError) -> UInt64 {
        guard let seed = UInt64(text) else { throw .corrupt("seed '\(text)' of adventure \(adventure)") }
        return seed
    }

    public static func followCode(_ text: String, ofAdventure adventure: String) throws(StoreError) -> FollowCode {
        guard let code = FollowCode(typed: text) else { throw .corrupt("follow code of adventure \(adventure)") }
        return code
    }

    /// `row` is nil where the reader has not the row's id at hand.
    public static func priority(_ value: Int, ofOutboxRow row: Int64?) throws(StoreError) -> Priority {
        guard let priority = Priority(rawValue: value) else {
            throw .corrupt("priority \(value) of outbox row" + (row.map { " \($0)" } ?? ""))
        }
        return priority
    }

    public static func priorityInPushLog(_ value: Int) throws(StoreError) -> Priority {
        guard let priority = Priority(rawValue: value) else { throw .corrupt("priority \(value) in push log") }
        return priority
    }

    public static func pushType(_ text: String) throws(StoreError) -> PushType {
        guard let type = PushType(rawValue: text) else { throw .corrupt("push type '\(text)' of outbox row") }
        return type
    }

    public static func storagePolicy(_ value: Int, ofFollowersChannel channel: String) throws(StoreError) -> MessageStoragePolicy {
        guard let policy = MessageStoragePolicy(rawValue: value) else {
            throw .corrupt("storage policy \(value) of followers' channel \(channel)")
        }
        return policy
    }

    public static func channelState(_ text: String) throws(StoreError) -> FollowerChannelState {
        guard let state = FollowerChannelState(rawValue: text) else { throw .corrupt("followers' channel state '\(text)'") }
        return state
    }

    public static func follower(delivery: String, status: String, player: String,
                                adventure: String) throws(StoreError) -> (FollowerDelivery, FollowerStatus) {
        guard let delivery = FollowerDelivery(rawValue: delivery), let status = FollowerStatus(rawValue: status) else {
            throw .corrupt("follower \(player) of adventure \(adventure)")
        }
        return (delivery, status)
    }

    public static func channelMemberStatus(_ text: String, of member: ChannelMemberID) throws(StoreError) -> ChannelMemberStatus {
        guard let status = ChannelMemberStatus(rawValue: text) else { throw .corrupt("channel member \(member)") }
        return status
    }
}
