import Vocabulary

/// What both engines decide the same way when APNs' answer to a push comes back:
/// each engine reads the push's row (under its own locks), this says whether the
/// answer may be recorded.
public enum OutboxRules {
    /// Nil when the answer may be recorded: an answer is recorded once, only
    /// while its push is being sent, and only by the store that claimed it (one
    /// whose claim was recovered lost it). `state` is the row's (nil: no such
    /// row; "answered" for a push answered earlier in the same batch), `holder`
    /// the store whose claim it is.
    public static func answerRefusal(_ push: OutboxID, state: String?, holder: String?, claimant: String) -> StoreError? {
        guard let state else { return .unknownOutboxRow(push) }
        guard state == OutboxState.sending.rawValue else {
            return .conflict("outbox row \(push) is \(state), not sending; its answer was recorded already or it was never claimed")
        }
        guard holder == claimant else {
            return .conflict("outbox row \(push) was claimed again after this claim was taken for abandoned")
        }
        return nil
    }
}
