import Foundation
import PushPolicy
import Store
import Wire

extension OutboxMessage {
    /// The outbox row for a push the policy decided on: the body as the exact bytes
    /// APNs will get, and the headers it goes with. `target` says where it goes in
    /// the store's terms (the policy knows players, the store knows devices).
    init(_ decision: PushDecision, target: PushTarget, topic: String) {
        let isEnd = if case .end = decision.payload.event { true } else { false }
        self.init(target: target, pushType: "liveactivity", topic: topic, priority: decision.priority,
                  expiration: decision.expiration, payload: decision.body,
                  reason: decision.reason, hasAlert: decision.payload.alert != nil, isEnd: isEnd)
    }
}
