import ConsoleView
import Foundation
import Hummingbird
import Services
import Store

extension RangersAPI {
    static let deliveryWindow: TimeInterval = 3600

    /// `GET /console/delivery`: the last hour's deliveries over every node.
    func consoleDelivery(_ request: Request) async throws -> Response {
        try await consolePage {
            let session = try await consoleGate.session(request)
            let reading = try await store.deliveryHealth(since: now().addingTimeInterval(-Self.deliveryWindow))
            let node = deliveryHealth.status
            return Self.page(ConsoleDeliveryPage.page(Self.signedIn(session), reading, channelLimit: FollowerSettings.appleChannelLimit,
                                                      nodeStatus: (node.status.rawValue, node.since)))
        }
    }
}
