import Foundation
import PushPolicy
import Vocabulary

/// What both engines decide the same way when APNs' answer to a push comes back:
/// each engine reads the push's row (under its own locks), this says whether the
/// answer may be recorded and what it makes of the push.
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

    /// Why an answer's settling update, made only while its push is being sent by
    /// `claimant`, changed nothing: the push's row as read afterwards says why
    /// (`answerRefusal`); one read as still being sent by `claimant` changed
    /// between the two.
    public static func unsettledRefusal(_ push: OutboxID, state: String?, holder: String?, claimant: String) -> StoreError {
        answerRefusal(push, state: state, holder: holder, claimant: claimant)
            ?? .conflict("outbox row \(push) is no longer being sent by this store")
    }

    /// What a claim does with a due push.
    public enum ClaimStep: Hashable, Sendable {
        /// It goes nowhere: dropped with `reason` as its outcome. A leave push whose
        /// member can no longer be reached finishes that member's leaving
        /// (`finishesLeaving`); an expired one does not.
        case drop(reason: String, finishesLeaving: Bool)
        /// Claimed for sending to `destination`.
        case send(PushDestination)
    }

    /// A push past its expiration is dropped before its target is looked at;
    /// otherwise its target's row (`lookup`, read by the engine) says where it goes.
    public static func claimStep(expiration: Int, at nowSeconds: Int,
                                 lookup: () throws -> TokenLookup) rethrows -> ClaimStep {
        if QueuedPushRules.hasExpired(expiration: expiration, at: nowSeconds) {
            return .drop(reason: QueuedPushRules.expiredReason, finishesLeaving: false)
        }
        switch try lookup() {
        case .unreachable(let reason): return .drop(reason: reason, finishesLeaving: true)
        case .token(let token): return .send(.device(token))
        case .channel(let channel): return .send(.channel(channel))
        }
    }

    /// What an answer makes of its push: its state and outcome, when it is tried
    /// again, and the push log's line (none for a push to try again, which APNs
    /// neither accepted nor refused).
    public struct Settlement: Hashable, Sendable {
        public var state: OutboxState
        public var outcome: String?
        public var nextAttempt: Date?
        public var log: LogLine?

        public init(state: OutboxState, outcome: String? = nil, nextAttempt: Date? = nil, log: LogLine? = nil) {
            self.state = state
            self.outcome = outcome
            self.nextAttempt = nextAttempt
            self.log = log
        }
    }

    public struct LogLine: Hashable, Sendable {
        public var status: Int?
        public var reason: String?
        public var apnsID: String?
        public var attempts: Int

        public init(status: Int?, reason: String? = nil, apnsID: String?, attempts: Int) {
            self.status = status
            self.reason = reason
            self.apnsID = apnsID
            self.attempts = attempts
        }
    }

    public static func settlement(of outcome: PushOutcome) -> Settlement {
        switch outcome {
        case .delivered(let apnsID, let status, let attempts):
            Settlement(state: .sent, log: LogLine(status: status, apnsID: apnsID, attempts: attempts))
        case .tokenInvalid(let status, let reason, _, let apnsID, let attempts):
            Settlement(state: .failed, outcome: "token no longer valid: \(reason)",
                       log: LogLine(status: status, reason: reason, apnsID: apnsID, attempts: attempts))
        case .channelGone(let status, let reason, let apnsID, let attempts):
            Settlement(state: .failed, outcome: "channel gone: \(reason)",
                       log: LogLine(status: status, reason: reason, apnsID: apnsID, attempts: attempts))
        case .retryLater(let nextAttempt, let reason):
            Settlement(state: .pending, outcome: "retrying: \(reason)", nextAttempt: nextAttempt)
        case .rejected(let status, let reason, let apnsID, let attempts):
            Settlement(state: .failed, outcome: reason, log: LogLine(status: status, reason: reason, apnsID: apnsID, attempts: attempts))
        }
    }
}
