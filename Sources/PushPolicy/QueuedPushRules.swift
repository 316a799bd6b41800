/// What becomes of a decided push while it waits to be sent. The store applies
/// these when it queues and claims pushes; the decisions are made here.
public enum QueuedPushRules {
    /// A push that a newer one to the same Live Activity (or followers' channel)
    /// makes pointless: a routine update (no alert, not an end), since the phone
    /// shows only the newest state. An alert must still be heard and an end must
    /// end the activity, so neither is ever superseded; push-to-start and
    /// walkie-talkie pushes neither.
    public static func isSupersedable(_ decision: PushDecision) -> Bool {
        switch decision.target {
        case .liveActivity, .followerChannel: !decision.hasAlert && !decision.isEnd
        case .pushToStart: false
        }
    }

    /// Whether a claim must look for a newer push to this one's target before
    /// sending it. Queuing a push supersedes at once the supersedable ones waiting
    /// for its target; those are decided only by ticks (`OutboxMessage.forTick`),
    /// and an adventure's ticks are stored one after another, each seeing the one
    /// before it committed. So a push that has waited since it was queued has no
    /// newer one: only a push that has been out (answered "try again later", or
    /// left by a dispatcher that stopped) can have had one queued meanwhile.
    public static func mayHaveNewerPush(supersedable: Bool, attempts: Int) -> Bool {
        supersedable && attempts > 0
    }

    /// Why a supersedable push was not sent: a newer push to its activity was
    /// queued, or is being or has been sent.
    public static let supersededReason = "a newer update for this activity was queued"

    /// Past its `apns-expiration` a push is worth nothing (an update's is its stale
    /// date); 0 means "now or never" and is APNs' to judge, not ours.
    public static func hasExpired(expiration: Int, at now: Int) -> Bool {
        expiration > 0 && expiration < now
    }

    public static let expiredReason = "expired before it could be sent"

    /// A push whose sender stopped before APNs answered goes again: delivery is at
    /// least once, and its timestamp makes a repeat harmless on the phone.
    public static let interruptedReason = "interrupted while sending; sent again"
}
