import APNs
import Foundation
import NIOConcurrencyHelpers
import PushVocabulary

/// A push sender that keeps each request and answers as the test says, per
/// device token: 200 unless told otherwise. No network, no TLS: the dispatcher's
/// rules are tested on their own; the curl path has its own tests over TLS.
final class InMemoryPushSender: PushSender {
    struct Sent: Sendable {
        var request: APNsRequest
        var answer: APNsResponse
    }

    /// What APNs answers a request, chosen per request by the test.
    typealias Answering = @Sendable (APNsRequest) async throws -> APNsResponse

    private let state = NIOLockedValueBox<(sent: [Sent], answering: Answering)>(
        ([], { _ in APNsResponse(status: 200, apnsID: UUID().uuidString.lowercased()) }))

    /// From now on, `answering` answers each push (it may wait, or throw `CancellationError`).
    func answer(with answering: @escaping Answering) { state.withLockedValue { $0.answering = answering } }

    /// Every push answered so far, in the order their answers came.
    var sent: [Sent] { state.withLockedValue { $0.sent } }

    func sent(to token: PushToken) -> [Sent] { sent.filter { $0.request.deviceToken == token.hex } }

    func send(_ request: APNsRequest) async throws -> APNsDelivery {
        let answering = state.withLockedValue { $0.answering }
        let answer = try await answering(request)
        state.withLockedValue { $0.sent.append(Sent(request: request, answer: answer)) }
        return APNsDelivery(answer: answer)
    }
}

extension APNsResponse {
    static let serviceUnavailable = APNsResponse(status: 503, reason: .serviceUnavailable)
    static func unregistered(since: Date) -> APNsResponse { APNsResponse(status: 410, reason: .unregistered, invalidSince: since) }
}
