import APNs
import APNsCurl
import Foundation

/// One client for the whole process: it keeps its HTTP/2 connections open and signs
/// (and renews) its provider token itself, from the team's .p8 key.
func makePushClient(keyFile: URL, keyID: String, teamID: String, environment: APNsEnvironment = .sandbox,
                    transport: CurlTransportConfiguration = CurlTransportConfiguration()) throws -> APNsClient {
    let key = try APNsSigningKey(contentsOf: keyFile, keyID: keyID, teamID: teamID)
    return APNsClient(environment: environment, key: key, transport: try CurlHTTP2Transport(configuration: transport))
}

/// A Live Activity update as ActivityKit reads it: `contentState` is the app's own
/// `ActivityAttributes.ContentState`, encoded as its widget decodes it.
struct LiveActivityUpdate<ContentState: Encodable & Sendable>: Encodable, Sendable {
    struct APS: Encodable, Sendable {
        var timestamp: Int
        var event = "update"
        var contentState: ContentState

        enum CodingKeys: String, CodingKey {
            case timestamp, event
            case contentState = "content-state"
        }
    }

    var aps: APS
}

/// Sends one update to one Live Activity's push token and says what APNs answered:
/// `.delivered`, `.tokenNoLongerValid` (stop using the token), `.retryLater` once the
/// client's own retries are spent, or `.rejected`.
func sendUpdate(_ state: some Encodable & Sendable, toActivityToken token: String, bundleID: String,
                with client: APNsClient) async throws -> APNsOutcome {
    let update = LiveActivityUpdate(aps: .init(timestamp: Int(Date().timeIntervalSince1970), contentState: state))
    let request = APNsRequest.liveActivity(deviceToken: token, bundleID: bundleID, priority: 10,
                                           payload: try JSONEncoder().encode(update))
    return try await client.send(request).outcome
}
