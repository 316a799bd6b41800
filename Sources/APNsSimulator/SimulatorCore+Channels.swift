import APNs
import Foundation
import Vocabulary

extension SimulatorCore {
    /// Channel management (management listener) and broadcasts (push listener):
    /// the checks outside the lock, then under it the channel's checks, faults,
    /// and the request carried out (a channel made, a broadcast fanned out).
    func respondToChannelRequest(_ request: IncomingPushRequest, connection: inout ConnectionTokenState,
                                 origin: RequestOrigin) -> SimulatorResponse {
        let now = configuration.now()
        let rules = state.withLockedValue { $0.rules }
        let verdict = ChannelRequestChecks.verdict(for: request, endpoint: origin.endpoint, rules: rules,
                                                   connection: &connection, now: now)
        let requestID = [request.header("apns-request-id"), request.header("apns-id")]
            .compactMap { $0 }.first(where: PushRequestChecks.isCanonicalUUID) ?? UUID().uuidString.lowercased()
        let kind: SimulatorRequestKind = origin.endpoint == .management ? .channelManagement : .broadcast

        return state.withLockedValue { state in
            var rejection: PushRejection
            var injected = false
            switch verdict {
            case .rejected(let refused):
                rejection = refused
            case .accepted(let checked):
                do throws(PushRejection) {
                    try state.broadcasts.check(checked, now: now)
                    if let failure = state.nextInjectedFailure(for: kind) {
                        rejection = failure
                        injected = true
                    } else {
                        let answer = try state.broadcasts.apply(checked, body: request.body, origin: origin, requestID: requestID, now: now)
                        return SimulatorResponse(status: answer.status, headers: [("apns-request-id", requestID)] + answer.headers,
                                                 body: answer.body, delay: state.faults.delay)
                    }
                } catch {
                    rejection = error
                }
            }
            state.rejectedTotal += 1
            append(RejectedPush(method: request.method, path: request.path, headers: request.headers, deviceToken: nil,
                                payload: request.body, apnsID: requestID, connectionNumber: origin.connectionNumber,
                                streamID: origin.streamID, receivedAt: now, status: rejection.status, reason: rejection.reason,
                                detail: rejection.detail, injected: injected, kind: kind),
                   to: &state.rejected)
            logger.debug("rejected a channel request", metadata: [
                "kind": "\(kind.rawValue)", "status": "\(rejection.status)", "reason": "\(rejection.reason)", "injected": "\(injected)",
            ])
            return SimulatorResponse(status: rejection.status,
                                     headers: [("apns-request-id", requestID), ("content-type", "application/json")],
                                     body: rejection.responseBody, delay: state.faults.delay)
        }
    }
}

/// The device's side, which APNs does not have: HTTP endpoints on the push
/// listener that play what an app does, for a simulator run as its own process
/// (`rangers apns-sim`). No provider token: these are the phone, not the server.
///
/// - `POST /simulator/subscriptions` `{"device": "<name or token>", "channel": "<id>"}`:
///   the app's `Activity.request(…, pushType: .channel(id))`. 201 with what the
///   device got from storage, 404 ChannelNotRegistered (the activity fails to start).
/// - `POST /simulator/devices/<device>/online` `{"online": false}`: the device goes
///   offline (broadcasts pass it by) or comes back (it gets what was stored).
/// - `GET /simulator/devices/<device>/deliveries`: what the device received, in order.
enum SimulatorDeviceAPI {
    static let prefix = "/simulator/"

    static func respond(to request: IncomingPushRequest, core: SimulatorCore) -> SimulatorResponse {
        let now = core.configuration.now()
        let parts = request.path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        switch (request.method, parts.count, parts.first) {
        case ("POST", 1, "subscriptions"):
            guard let body = try? JSONValue.parse(request.body), case .string(let device)? = body["device"], !device.isEmpty,
                  case .string(let channel)? = body["channel"]
            else { return error(400, "BadRequestPayload", "expected {\"device\": \"…\", \"channel\": \"…\"}") }
            let result: Result<[DeviceDelivery], PushRejection> = core.state.withLockedValue { state in
                Result(catching: { () throws(PushRejection) -> [DeviceDelivery] in
                    try state.broadcasts.subscribe(device, to: BroadcastChannelID(channel), bundleID: nil, now: now)
                })
            }
            switch result {
            case .success(let stored): return json(201, #"{"fromStorage":\#(stored.count)}"#)
            case .failure(let rejection): return error(404, rejection.reason.description, "the Live Activity failed to start")
            }
        case ("POST", 3, "devices") where parts[2] == "online":
            guard let body = try? JSONValue.parse(request.body), case .bool(let online)? = body["online"] else {
                return error(400, "BadRequestPayload", "expected {\"online\": true|false}")
            }
            let stored = core.state.withLockedValue { $0.broadcasts.setOnline(parts[1], online, now: now) }
            return json(200, #"{"fromStorage":\#(stored.count)}"#)
        case ("GET", 3, "devices") where parts[2] == "deliveries":
            let deliveries = core.deliveries(to: parts[1])
            let items = deliveries.map { delivery -> [String: Any] in
                var item: [String: Any] = ["sequence": delivery.sequence, "priority": delivery.priority,
                                           "requestID": delivery.requestID, "fromStorage": delivery.fromStorage,
                                           "payload": (try? JSONSerialization.jsonObject(with: delivery.payload)) ?? NSNull()]
                if case .channel(let channel) = delivery.route { item["channel"] = channel.rawValue }
                return item
            }
            let body = (try? JSONSerialization.data(withJSONObject: items, options: [.sortedKeys])) ?? Data("[]".utf8)
            return SimulatorResponse(status: 200, headers: [("content-type", "application/json")], body: body, delay: .zero)
        case (_, 1, "subscriptions"), (_, 3, "devices"):
            return error(405, "MethodNotAllowed", nil)
        default:
            return error(404, "BadPath", nil)
        }
    }

    private static func json(_ status: Int, _ text: String) -> SimulatorResponse {
        SimulatorResponse(status: status, headers: [("content-type", "application/json")], body: Data(text.utf8), delay: .zero)
    }

    private static func error(_ status: Int, _ reason: String, _ detail: String?) -> SimulatorResponse {
        let rejection = PushRejection(APNsReason(reason), status: status, detail: detail)
        return SimulatorResponse(status: status, headers: [("content-type", "application/json")], body: rejection.responseBody,
                                 delay: .zero)
    }
}

extension SimulatorCore {
    /// What `device` received, oldest first: pushes to it as a device token, and
    /// broadcasts on the channels it listens on.
    func deliveries(to device: String) -> [DeviceDelivery] {
        let key = ChannelRegistry.deviceKey(device)
        return state.withLockedValue { state in
            let direct = newest(state.accepted).filter { $0.deviceToken.lowercased() == key }.map { push in
                DeviceDelivery(route: .deviceToken, payload: push.payload, priority: push.priority, requestID: push.apnsID,
                               sequence: push.sequence, deliveredAt: push.receivedAt, fromStorage: false)
            }
            return (direct + state.broadcasts.channelDeliveries(to: key)).sorted { $0.sequence < $1.sequence }
        }
    }
}
