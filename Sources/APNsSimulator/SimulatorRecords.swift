import APNs
import Foundation
import Vocabulary

/// A push the simulator accepted (answered 200), as it arrived.
public struct RecordedPush: Sendable {
    /// Regular headers in arrival order, lowercase names.
    public var headers: [(name: String, value: String)]
    public var deviceToken: String
    public var pushType: PushType
    public var topic: String
    public var bundleID: String
    /// 10 when the request had no `apns-priority`.
    public var priority: Int
    public var expiration: Int?
    /// The `apns-id` answered: the request's, or one the simulator made up.
    public var apnsID: String
    /// The `apns-unique-id` answered (sandbox only).
    public var uniqueID: String?
    public var collapseID: String?
    public var payload: Data
    /// 1 for the first TLS connection the simulator accepted, and so on.
    public var connectionNumber: Int
    public var streamID: Int
    public var receivedAt: Date
    /// Orders pushes and broadcast deliveries across the simulator (see `DeviceDelivery`).
    public var sequence: Int

    public func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }
}

/// A push the simulator refused, with what it answered.
public struct RejectedPush: Sendable {
    public var method: String
    public var path: String
    public var headers: [(name: String, value: String)]
    /// From the path, if there was one, valid or not.
    public var deviceToken: String?
    public var payload: Data
    public var apnsID: String
    public var connectionNumber: Int
    public var streamID: Int
    public var receivedAt: Date
    public var status: Int
    public var reason: APNsReason
    public var detail: String?
    /// True when the request was valid and a fault (`failNext`, `failShare`) refused it.
    public var injected: Bool
    public var kind: SimulatorRequestKind = .devicePush

    public func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }
    public var pushType: String? { header("apns-push-type") }
}

/// What a request asked of the simulator, for faults aimed at one kind and for records.
public enum SimulatorRequestKind: String, Sendable, CaseIterable {
    /// `POST /3/device/<token>`.
    case devicePush
    /// `POST /4/broadcasts/apps/<bundle id>`.
    case broadcast
    /// Creating, reading, listing and deleting channels on the management host.
    case channelManagement
}

/// Failures the simulator is told to inject, applied to requests that passed every check.
struct SimulatorFaults {
    struct Failure {
        var status: Int
        var reason: APNsReason
    }

    var failNext: (remaining: Int, failure: Failure)?
    var failShare: (share: Double, failure: Failure, generator: SplitMix64)?
    var delay: Duration = .zero

    /// The failure to answer this valid request with, if any; `failNext` goes first.
    mutating func nextInjectedFailure() -> PushRejection? {
        if let (remaining, failure) = failNext {
            failNext = remaining > 1 ? (remaining - 1, failure) : nil
            return PushRejection(failure.reason, status: failure.status)
        }
        if let (share, failure, oldGenerator) = failShare {
            var generator = oldGenerator
            let draw = generator.nextUnitInterval()
            failShare = (share, failure, generator)
            if draw < share { return PushRejection(failure.reason, status: failure.status) }
        }
        return nil
    }
}

/// Records hold the request's `authorization` header; printed (in a failed test's
/// message, say) they show which key signed it but never the bearer token itself.
private func redactedHeaders(_ headers: [(name: String, value: String)]) -> String {
    headers.map { $0.name == "authorization" ? "authorization: bearer <redacted>" : "\($0.name): \($0.value)" }
        .joined(separator: ", ")
}

extension RecordedPush: CustomStringConvertible {
    public var description: String {
        "RecordedPush(\(pushType.rawValue) to \(deviceToken), topic \(topic), priority \(priority), apns-id \(apnsID), "
            + "connection \(connectionNumber) stream \(streamID), \(payload.count) bytes, headers [\(redactedHeaders(headers))])"
    }
}

extension RejectedPush: CustomStringConvertible {
    public var description: String {
        "RejectedPush(\(status) \(reason)\(detail.map { ": \($0)" } ?? "")\(injected ? " (injected)" : ""), \(method) \(path), "
            + "connection \(connectionNumber) stream \(streamID), \(payload.count) bytes, headers [\(redactedHeaders(headers))])"
    }
}
