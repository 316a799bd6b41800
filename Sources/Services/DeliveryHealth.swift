import Foundation
import NIOConcurrencyHelpers
import Store

/// Whether pushes reach APNs now, as the dispatcher last saw it. The app shows its
/// walkie-talkie as "reconnecting" while this is not `available`: a message sent
/// then would reach no one until APNs answers again.
public final class DeliveryHealth: @unchecked Sendable {
    public enum Status: String, Codable, Sendable {
        /// APNs answered the last push (whatever it said about that push).
        case available
        /// The last push got no answer or a "try later": pushes wait and are retried.
        case reconnecting
        /// The server is stopping; nothing new will be sent.
        case unavailable
    }

    private let lock = NIOLock()
    private var current = Status.available
    private var changedAt: Date

    public init(now: Date = Date()) { changedAt = now }

    public var status: (status: Status, since: Date) { lock.withLock { (current, changedAt) } }

    public func record(_ outcome: PushOutcome, at now: Date) {
        switch outcome {
        case .delivered, .tokenInvalid, .channelGone: set(.available, at: now)
        // With a status APNs answered; without one the request never left (a bad
        // push type, say), which tells nothing about APNs.
        case .rejected(let status, _, _, _): if status != nil { set(.available, at: now) }
        case .retryLater: set(.reconnecting, at: now)
        }
    }

    public func stopping(at now: Date) { set(.unavailable, at: now) }

    private func set(_ status: Status, at now: Date) {
        lock.withLock {
            guard current != status, current != .unavailable else { return }
            current = status
            changedAt = now
        }
    }
}
