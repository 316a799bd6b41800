import APNs
import Foundation
import Logging
import NIOConcurrencyHelpers
import Vocabulary

/// What one stream is answered.
struct SimulatorResponse: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: Data
    var delay: Duration
}

/// Where a request came from, for the records.
struct RequestOrigin: Sendable {
    var connectionNumber: Int
    var streamID: Int
    var endpoint: SimulatorEndpoint = .push
}

/// The simulator's shared state and the step from a verdict to an answer: faults,
/// records, response headers. Everything mutable sits behind one lock; the checks
/// themselves (the slow part: signature verification) run outside it.
final class SimulatorCore: Sendable {
    struct State {
        var rules: PushRequestRules
        /// Faults for requests of any kind, and for one kind only.
        var faults = SimulatorFaults()
        var faultsByKind: [SimulatorRequestKind: SimulatorFaults] = [:]
        var broadcasts: ChannelRegistry
        var accepted: [RecordedPush] = []
        var rejected: [RejectedPush] = []
        var acceptedTotal = 0
        var rejectedTotal = 0
        var connectionsAccepted = 0
        var maximumConcurrentStreamsSeen = 0
        var clientResetsTotal = 0
        var clientResetsByConnection: [Int: Int] = [:]

        /// The failure to answer a valid request of `kind` with, if any: one
        /// injected for its kind first, then one for any request.
        mutating func nextInjectedFailure(for kind: SimulatorRequestKind) -> PushRejection? {
            if !faultsByKind.isEmpty, let failure = faultsByKind[kind]?.nextInjectedFailure() { return failure }
            return faults.nextInjectedFailure()
        }
    }

    let configuration: APNsSimulatorConfiguration
    let state: NIOLockedValueBox<State>
    let logger: Logger

    init(configuration: APNsSimulatorConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        state = NIOLockedValueBox(State(rules: PushRequestRules(bundleIDs: configuration.bundleIDs),
                                  broadcasts: ChannelRegistry(limitPerApp: configuration.channelLimitPerApp,
                                                              recordLimit: configuration.recordLimit)))
    }

    /// A number for a connection whose TLS handshake just completed.
    func connectionOpened() -> Int {
        state.withLockedValue { state in
            state.connectionsAccepted += 1
            return state.connectionsAccepted
        }
    }

    func clientResetReceived(connection number: Int) {
        state.withLockedValue { state in
            state.clientResetsTotal += 1
            state.clientResetsByConnection[number, default: 0] += 1
        }
    }

    func streamsInFlight(_ count: Int) {
        state.withLockedValue { $0.maximumConcurrentStreamsSeen = max($0.maximumConcurrentStreamsSeen, count) }
    }

    func respond(to request: IncomingPushRequest, connection: inout ConnectionTokenState, origin: RequestOrigin) -> SimulatorResponse {
        if origin.endpoint == .management || request.path.hasPrefix(ChannelRequestChecks.broadcastPrefix) {
            return respondToChannelRequest(request, connection: &connection, origin: origin)
        }
        if request.path.hasPrefix(SimulatorDeviceAPI.prefix) { return SimulatorDeviceAPI.respond(to: request, core: self) }
        let now = configuration.now()
        let rules = state.withLockedValue { $0.rules }
        let verdict = PushRequestChecks.verdict(for: request, rules: rules, connection: &connection, now: now)
        let apnsID = request.header("apns-id").flatMap { PushRequestChecks.isCanonicalUUID($0) ? $0 : nil }
            ?? UUID().uuidString.lowercased()

        return state.withLockedValue { state in
            var outcome: PushRejection?
            var injected = false
            switch verdict {
            case .rejected(let rejection):
                outcome = rejection
            case .accepted(let push):
                outcome = state.nextInjectedFailure(for: .devicePush)
                injected = outcome != nil
                if outcome == nil {
                    return accept(push, request: request, apnsID: apnsID, origin: origin, now: now, state: &state)
                }
            }
            let rejection = outcome!
            state.rejectedTotal += 1
            append(RejectedPush(method: request.method, path: request.path, headers: request.headers,
                                deviceToken: request.pathDeviceToken, payload: request.body, apnsID: apnsID,
                                connectionNumber: origin.connectionNumber, streamID: origin.streamID, receivedAt: now,
                                status: rejection.status, reason: rejection.reason, detail: rejection.detail, injected: injected),
                   to: &state.rejected)
            logger.debug("rejected a push", metadata: [
                "status": "\(rejection.status)", "reason": "\(rejection.reason)", "injected": "\(injected)",
                "connection": "\(origin.connectionNumber)", "stream": "\(origin.streamID)",
            ])
            return SimulatorResponse(status: rejection.status,
                                     headers: [("apns-id", apnsID), ("content-type", "application/json")],
                                     body: rejection.responseBody, delay: state.faults.delay)
        }
    }

    private func accept(_ push: ValidPush, request: IncomingPushRequest, apnsID: String, origin: RequestOrigin, now: Date,
                        state: inout State) -> SimulatorResponse {
        let uniqueID = configuration.sandbox ? UUID().uuidString.lowercased() : nil
        state.acceptedTotal += 1
        append(RecordedPush(headers: request.headers, deviceToken: push.deviceToken, pushType: push.pushType, topic: push.topic,
                            bundleID: push.bundleID, priority: push.priority, expiration: push.expiration, apnsID: apnsID,
                            uniqueID: uniqueID, collapseID: push.collapseID, payload: request.body,
                            connectionNumber: origin.connectionNumber, streamID: origin.streamID, receivedAt: now,
                            sequence: state.broadcasts.nextSequence()),
               to: &state.accepted)
        if let channel = push.inputPushChannel {
            // The started activity listens on the channel; on a channel that is not
            // the app's, it does not start (APNs itself accepted the push).
            do {
                try state.broadcasts.subscribe(push.deviceToken, to: BroadcastChannelID(channel), bundleID: push.bundleID, now: now)
            } catch {
                logger.debug("a push-to-start named a channel the app does not have", metadata: ["channel": "\(channel)"])
            }
        }
        var headers = [(name: "apns-id", value: apnsID)]
        if let uniqueID { headers.append(("apns-unique-id", uniqueID)) }
        return SimulatorResponse(status: 200, headers: headers, body: Data(), delay: state.faults.delay)
    }

    /// Keeps the newest `recordLimit`.
    func append<Record>(_ record: Record, to records: inout [Record]) {
        appendKeepingNewest(record, to: &records, limit: configuration.recordLimit)
    }

    /// The newest `recordLimit` (the list trims itself only now and then), without a copy.
    func newest<Record>(_ records: [Record]) -> ArraySlice<Record> {
        records.suffix(max(configuration.recordLimit, 1))
    }
}
