import APNs
@testable import APNsSimulator
import Foundation
import Testing
import Vocabulary

/// Requests to the management host and broadcasts, as the simulator's fixtures make them.
enum ChannelFixtures {
    static let otherApp = "com.example.other"
    static let update = #"{"aps":{"timestamp":1700000000,"event":"update","content-state":{"currentHealthLevel":0.5,"eventDescription":"Hit!"}}}"#

    static func authorization() -> (name: String, value: String) {
        ("authorization", "bearer \(Fixtures.provider.token(issuedAt: Fixtures.now))")
    }

    static func create(policy: Int = 1, bundleID: String = Fixtures.bundleID) -> IncomingPushRequest {
        IncomingPushRequest(method: "POST", path: "/1/apps/\(bundleID)/channels", headers: [authorization()],
                            body: Data(#"{"message-storage-policy":\#(policy),"push-type":"LiveActivity"}"#.utf8))
    }

    static func read(_ channel: BroadcastChannelID, method: String = "GET") -> IncomingPushRequest {
        IncomingPushRequest(method: method, path: "/1/apps/\(Fixtures.bundleID)/channels",
                            headers: [authorization(), ("apns-channel-id", channel.rawValue)], body: Data())
    }

    static func broadcast(_ channel: BroadcastChannelID, payload: String = update) -> IncomingPushRequest {
        IncomingPushRequest(method: "POST", path: "/4/broadcasts/apps/\(Fixtures.bundleID)",
                            headers: [authorization(), ("apns-push-type", "liveactivity"), ("apns-channel-id", channel.rawValue),
                                      ("apns-priority", "5"), ("apns-expiration", "0")],
                            body: Data(payload.utf8))
    }

    /// A registry holding one channel of each storage policy for the app and one of another app.
    static func registry(limit: Int = 10_000) -> (registry: ChannelRegistry, stored: BroadcastChannelID,
                                                   unstored: BroadcastChannelID, foreign: BroadcastChannelID) {
        var registry = ChannelRegistry(limitPerApp: limit)
        func make(_ policy: MessageStoragePolicy, _ bundleID: String) -> BroadcastChannelID {
            let request = ChannelRequest(bundleID: bundleID, operation: .create(policy), requestID: nil,
                                         provider: ProviderTokenClaims(keyID: "K", teamID: "T", issuedAt: 0))
            let answer = try! registry.apply(request, body: Data(), origin: RequestOrigin(connectionNumber: 1, streamID: 1),
                                             requestID: "r", now: Fixtures.now)
            return BroadcastChannelID(answer.headers.first { $0.name == "apns-channel-id" }!.value)
        }
        let stored = make(.mostRecentMessageStored, Fixtures.bundleID)
        let unstored = make(.noMessageStored, Fixtures.bundleID)
        let foreign = make(.mostRecentMessageStored, otherApp)
        return (registry, stored, unstored, foreign)
    }
}

/// One wrong channel request or broadcast and what APNs answers it with.
struct ChannelRejectionCase: Sendable, CustomTestStringConvertible {
    enum Start: Sendable { case create, read, broadcast, unstoredBroadcast }

    var name: String
    var start: Start
    var endpoint: SimulatorEndpoint? = nil
    var rules: PushRequestRules = Fixtures.rules
    var limit = 10_000
    var change: @Sendable (inout IncomingPushRequest, _ foreign: BroadcastChannelID) -> Void
    var status: Int
    var reason: String

    var testDescription: String { "\(name) → \(status) \(reason)" }
}

private let stranger = ProviderFixture(keyID: "STRANGER01", teamID: "TEAM999999")
private let noBroadcast: PushRequestRules = {
    var rules = Fixtures.rules
    rules.broadcastDisabledBundleIDs = [Fixtures.bundleID]
    return rules
}()
private let oversized = #"{"aps":{"timestamp":1,"event":"update","content-state":{"pad":""# + String(repeating: "x", count: 5121) + #""}}}"#

private let channelCases: [ChannelRejectionCase] = [
    // Path and method
    ChannelRejectionCase(name: "unknown management path", start: .create, change: { r, _ in r.path += "z" }, status: 404, reason: "BadPath"),
    ChannelRejectionCase(name: "management path of another version", start: .create,
                         change: { r, _ in r.path = "/2/apps/\(Fixtures.bundleID)/channels" }, status: 404, reason: "BadPath"),
    ChannelRejectionCase(name: "management path on the push host", start: .create, endpoint: .push,
                         change: { _, _ in }, status: 404, reason: "BadPath"),
    ChannelRejectionCase(name: "broadcast on the management host", start: .broadcast, endpoint: .management,
                         change: { _, _ in }, status: 404, reason: "BadPath"),
    ChannelRejectionCase(name: "broadcast path without a bundle id", start: .broadcast,
                         change: { r, _ in r.path = "/4/broadcasts/apps/" }, status: 404, reason: "BadPath"),
    ChannelRejectionCase(name: "PUT on channels", start: .create, change: { r, _ in r.method = "PUT" }, status: 405, reason: "MethodNotAllowed"),
    ChannelRejectionCase(name: "POST on all-channels", start: .create,
                         change: { r, _ in r.path = "/1/apps/\(Fixtures.bundleID)/all-channels" }, status: 405, reason: "MethodNotAllowed"),
    ChannelRejectionCase(name: "GET a broadcast", start: .broadcast, change: { r, _ in r.method = "GET" }, status: 405, reason: "MethodNotAllowed"),
    ChannelRejectionCase(name: "apns-channel-id twice", start: .read,
                         change: { r, _ in r.headers.append(("apns-channel-id", "YQ==")) }, status: 400, reason: "DuplicateHeaders"),
    // Authentication
    ChannelRejectionCase(name: "no authorization", start: .create, change: { r, _ in r.setHeader("authorization", nil) },
                         status: 403, reason: "MissingProviderToken"),
    ChannelRejectionCase(name: "token of an unknown key", start: .broadcast,
                         change: { r, _ in r.setHeader("authorization", "bearer \(stranger.token(issuedAt: Fixtures.now))") },
                         status: 403, reason: "InvalidProviderToken"),
    ChannelRejectionCase(name: "token over an hour old", start: .read,
                         change: { r, _ in r.setHeader("authorization", "bearer \(Fixtures.provider.token(issuedAt: Fixtures.now - 3700))") },
                         status: 403, reason: "ExpiredProviderToken"),
    // The app
    ChannelRejectionCase(name: "bundle id with the push type suffix", start: .create,
                         change: { r, _ in r.path = "/1/apps/\(Fixtures.bundleID).push-type.liveactivity/channels" },
                         status: 400, reason: "TopicDisallowed"),
    ChannelRejectionCase(name: "an app not the token's team's", start: .broadcast,
                         rules: PushRequestRules(providerKeys: [try! Fixtures.provider.registered()], bundleIDs: [ChannelFixtures.otherApp]),
                         change: { _, _ in }, status: 403, reason: "TopicMismatch"),
    ChannelRejectionCase(name: "create without broadcast capability", start: .create, rules: noBroadcast,
                         change: { _, _ in }, status: 400, reason: "FeatureNotEnabled"),
    ChannelRejectionCase(name: "broadcast without broadcast capability", start: .broadcast, rules: noBroadcast,
                         change: { _, _ in }, status: 400, reason: "FeatureNotEnabled"),
    ChannelRejectionCase(name: "apns-request-id not a UUID", start: .create, change: { r, _ in r.setHeader("apns-request-id", "req-1") },
                         status: 400, reason: "BadMessageId"),
    // Creating
    ChannelRejectionCase(name: "create body not JSON", start: .create, change: { r, _ in r.body = Data("policy=1".utf8) },
                         status: 400, reason: "BadRequestPayload"),
    ChannelRejectionCase(name: "create without a body", start: .create, change: { r, _ in r.body = Data() },
                         status: 400, reason: "BadRequestPayload"),
    ChannelRejectionCase(name: "create with an unknown attribute", start: .create,
                         change: { r, _ in r.body = Data(#"{"message-storage-policy":1,"push-type":"LiveActivity","ttl":5}"#.utf8) },
                         status: 400, reason: "BadRequestParams"),
    ChannelRejectionCase(name: "storage policy 2", start: .create,
                         change: { r, _ in r.body = Data(#"{"message-storage-policy":2,"push-type":"LiveActivity"}"#.utf8) },
                         status: 400, reason: "BadRequestParams"),
    ChannelRejectionCase(name: "no storage policy", start: .create,
                         change: { r, _ in r.body = Data(#"{"push-type":"LiveActivity"}"#.utf8) }, status: 400, reason: "BadRequestParams"),
    ChannelRejectionCase(name: "create without push-type", start: .create,
                         change: { r, _ in r.body = Data(#"{"message-storage-policy":0}"#.utf8) }, status: 400, reason: "MissingPushType"),
    ChannelRejectionCase(name: "create for alerts", start: .create,
                         change: { r, _ in r.body = Data(#"{"message-storage-policy":0,"push-type":"Alert"}"#.utf8) },
                         status: 400, reason: "InvalidPushType"),
    ChannelRejectionCase(name: "create past the app's limit", start: .create, limit: 2, change: { _, _ in },
                         status: 400, reason: "CannotCreateChannelConfig"),
    // The channel
    ChannelRejectionCase(name: "read without apns-channel-id", start: .read, change: { r, _ in r.setHeader("apns-channel-id", nil) },
                         status: 400, reason: "MissingChannelId"),
    ChannelRejectionCase(name: "delete of a malformed channel id", start: .read,
                         change: { r, _ in r.method = "DELETE"; r.setHeader("apns-channel-id", "not base64!") }, status: 400, reason: "BadChannelId"),
    ChannelRejectionCase(name: "read of an unknown channel", start: .read,
                         change: { r, _ in r.setHeader("apns-channel-id", "dW5rbm93bg==") }, status: 400, reason: "ChannelNotRegistered"),
    ChannelRejectionCase(name: "read of another app's channel", start: .read,
                         change: { r, foreign in r.setHeader("apns-channel-id", foreign.rawValue) }, status: 400, reason: "ChannelNotRegistered"),
    ChannelRejectionCase(name: "broadcast without apns-channel-id", start: .broadcast,
                         change: { r, _ in r.setHeader("apns-channel-id", nil) }, status: 400, reason: "MissingChannelId"),
    ChannelRejectionCase(name: "broadcast to an unknown channel", start: .broadcast,
                         change: { r, _ in r.setHeader("apns-channel-id", "dW5rbm93bg==") }, status: 400, reason: "ChannelNotRegistered"),
    // Broadcast headers
    ChannelRejectionCase(name: "broadcast without push type", start: .broadcast, change: { r, _ in r.setHeader("apns-push-type", nil) },
                         status: 400, reason: "MissingPushType"),
    ChannelRejectionCase(name: "broadcast as an alert", start: .broadcast, change: { r, _ in r.setHeader("apns-push-type", "alert") },
                         status: 400, reason: "InvalidPushType"),
    ChannelRejectionCase(name: "broadcast at priority 1", start: .broadcast, change: { r, _ in r.setHeader("apns-priority", "1") },
                         status: 400, reason: "BadPriority"),
    ChannelRejectionCase(name: "broadcast priority not a number", start: .broadcast, change: { r, _ in r.setHeader("apns-priority", "high") },
                         status: 400, reason: "BadPriority"),
    ChannelRejectionCase(name: "broadcast expiration not a number", start: .broadcast,
                         change: { r, _ in r.setHeader("apns-expiration", "soon") }, status: 400, reason: "BadExpirationDate"),
    ChannelRejectionCase(name: "nonzero expiration on a channel without storage", start: .unstoredBroadcast,
                         change: { r, _ in r.setHeader("apns-expiration", "1700000600") }, status: 400, reason: "BadExpirationDate"),
    // Broadcast payload
    ChannelRejectionCase(name: "broadcast without a payload", start: .broadcast, change: { r, _ in r.body = Data() },
                         status: 400, reason: "PayloadEmpty"),
    ChannelRejectionCase(name: "broadcast over 5120 bytes", start: .broadcast, change: { r, _ in r.body = Data(oversized.utf8) },
                         status: 413, reason: "PayloadTooLarge"),
    ChannelRejectionCase(name: "broadcast that starts an activity", start: .broadcast,
                         change: { r, _ in r.body = Data(Fixtures.liveActivityStart.utf8) }, status: 400, reason: "BadPayload"),
    ChannelRejectionCase(name: "broadcast body not JSON", start: .broadcast, change: { r, _ in r.body = Data("{aps".utf8) },
                         status: 400, reason: "BadPayload"),
    // APNs checks the channel before the payload.
    ChannelRejectionCase(name: "unknown channel and an empty payload", start: .broadcast,
                         change: { r, _ in r.setHeader("apns-channel-id", "dW5rbm93bg=="); r.body = Data() },
                         status: 400, reason: "ChannelNotRegistered"),
]

@Suite("Channel management and broadcast checks, in APNs's order")
struct ChannelRequestChecksTests {
    func request(for testCase: ChannelRejectionCase) -> (IncomingPushRequest, SimulatorEndpoint, ChannelRegistry) {
        let (registry, stored, unstored, foreign) = ChannelFixtures.registry(limit: testCase.limit)
        var request: IncomingPushRequest
        var endpoint: SimulatorEndpoint
        switch testCase.start {
        case .create: (request, endpoint) = (ChannelFixtures.create(), .management)
        case .read: (request, endpoint) = (ChannelFixtures.read(stored), .management)
        case .broadcast: (request, endpoint) = (ChannelFixtures.broadcast(stored), .push)
        case .unstoredBroadcast: (request, endpoint) = (ChannelFixtures.broadcast(unstored), .push)
        }
        testCase.change(&request, foreign)
        return (request, testCase.endpoint ?? endpoint, registry)
    }

    @Test(arguments: channelCases)
    func rejects(_ testCase: ChannelRejectionCase) throws {
        let (request, endpoint, registry) = request(for: testCase)
        var connection = ConnectionTokenState()
        let rejection = try #require(ChannelRequestChecks.rejection(for: request, endpoint: endpoint, rules: testCase.rules,
                                                                    registry: registry, connection: &connection, now: Fixtures.now),
                                     "accepted a request that APNs refuses")
        #expect(rejection.status == testCase.status)
        #expect(rejection.reason.description == testCase.reason)
    }

    @Test func acceptsEveryWellFormedRequest() {
        let (registry, stored, unstored, _) = ChannelFixtures.registry(limit: 3)
        var listed = ChannelFixtures.read(stored)
        listed.path = "/1/apps/\(Fixtures.bundleID)/all-channels"
        listed.setHeader("apns-channel-id", nil)
        var deleted = ChannelFixtures.read(unstored, method: "DELETE")
        deleted.setHeader("apns-request-id", "2288cf3f-70d8-46a6-97d7-dd5d00867127")
        var storedForAnHour = ChannelFixtures.broadcast(stored)
        storedForAnHour.setHeader("apns-expiration", "1700003600")
        storedForAnHour.setHeader("apns-push-type", "Liveactivity")  // as Apple's own example writes it
        var defaults = ChannelFixtures.broadcast(unstored, payload: Fixtures.liveActivityEnd)
        defaults.setHeader("apns-priority", nil)
        defaults.setHeader("apns-expiration", nil)
        let requests: [(IncomingPushRequest, SimulatorEndpoint)] = [
            (ChannelFixtures.create(policy: 0), .management), (ChannelFixtures.read(stored), .management), (listed, .management),
            (deleted, .management), (storedForAnHour, .push), (defaults, .push),
        ]
        for (request, endpoint) in requests {
            var connection = ConnectionTokenState()
            let rejection = ChannelRequestChecks.rejection(for: request, endpoint: endpoint, rules: Fixtures.rules, registry: registry,
                                                           connection: &connection, now: Fixtures.now)
            #expect(rejection == nil, "\(request.method) \(request.path): \(String(describing: rejection))")
        }
    }
}
