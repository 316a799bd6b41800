import PushPolicy
import Vocabulary

/// Where a queued push goes when it is claimed: the token its target has at that
/// moment, or why it can go nowhere (it is then dropped with that as its outcome).
/// Each engine reads the target's row; what the row means is decided here.
public enum TokenLookup: Hashable, Sendable {
    case token(PushToken)
    case channel(BroadcastChannelID)
    case unreachable(String)

    /// `state` is nil for a channel the store does not know. A broadcast goes to an
    /// open channel only: one being made again after APNs lost it takes the next
    /// tick's broadcast, which carries the newest state.
    public static func followerChannel(state: String?, apnsID: String?) -> TokenLookup {
        guard let state else { return .unreachable("the followers' channel is unknown") }
        guard state == FollowerChannelState.open.rawValue, let apnsID else {
            return .unreachable("the followers' channel is \(state), not open")
        }
        return .channel(BroadcastChannelID(apnsID))
    }

    /// `status` is nil for an activity the store does not know; `validToken` is
    /// its one token not invalidated.
    public static func liveActivity(status: String?, validToken: String?) -> TokenLookup {
        guard let status else { return .unreachable("the activity is unknown") }
        guard status == LiveActivityStatus.active.rawValue else { return .unreachable("the activity is \(status)") }
        return validToken.map { .token(PushToken(stored: $0)) } ?? .unreachable("the activity has no valid token")
    }

    public static func pushToStart(deviceIsKnown: Bool, validToken: String?) -> TokenLookup {
        guard deviceIsKnown else { return .unreachable("the device is unknown") }
        return validToken.map { .token(PushToken(stored: $0)) } ?? .unreachable("the device has no valid push-to-start token")
    }

    /// `status` is nil for a member the store does not know. A member who is
    /// leaving still gets the push that tells them to leave, and nothing else.
    public static func pushToTalk(status: String?, validToken: String?, isLeavePush: Bool) -> TokenLookup {
        guard let status else { return .unreachable("the channel member is unknown") }
        guard WalkieTalkiePolicy.reaches(isListening: status == ChannelMemberStatus.joined.rawValue,
                                         isLeaving: status == ChannelMemberStatus.leaving.rawValue, isLeavePush: isLeavePush)
        else { return .unreachable("the member has left the channel") }
        return validToken.map { .token(PushToken(stored: $0)) } ?? .unreachable("the channel member has no valid token")
    }
}

/// A budget as both engines store it: the JSON its `Codable` form reads, written
/// by hand because `JSONEncoder` costs more than the rest of a tick.
public enum LedgerJSON {
    public static func text(of ledger: BudgetLedger) -> String {
        "{\"highPrioritySent\":[" + ledger.highPrioritySent.map(String.init).joined(separator: ",") + "]"
            + (ledger.lastPushAt.map { ",\"lastPushAt\":\($0)" } ?? "") + "}"
    }
}
