import Foundation
import RangersClient
import Wire
#if canImport(ActivityKit) && os(iOS)
import ActivityKit
#endif

/// The app tells the server its Live Activity's push token, through the generated client.
func registerLiveActivity(server: URL, apiKey: String, adventureID: String, activityID: String, pushToken: String,
                          hero: Components.Schemas.HeroID, locale: String) async throws {
    let client = Client(serverURL: server, key: apiKey)
    let answer = try await client.registerActivity(
        path: .init(adventureID: adventureID),
        body: .json(.init(activityID: activityID, pushToken: pushToken, hero: hero, frequentPushesEnabled: true,
                          locale: locale)))
    if case .ok = answer { return }  // registered before: its token replaced
    _ = try answer.created  // any other answer throws, naming what the server said
}

/// A push's `content-state`, decoded as the widget's ActivityKit decodes it (a plain
/// JSONDecoder), into the very type the server encoded.
func contentState(ofPush payload: Data) throws -> AdventureAttributes.ContentState {
    struct Push: Decodable {
        struct APS: Decodable {
            var contentState: AdventureAttributes.ContentState
            enum CodingKeys: String, CodingKey { case contentState = "content-state" }
        }
        var aps: APS
    }
    return try JSONDecoder().decode(Push.self, from: payload).aps.contentState
}

#if canImport(ActivityKit) && os(iOS)
/// On the phone, the server's pushes update an `Activity<AdventureAttributes>`; a
/// follower's has the same attributes with an empty `heroID`.
@available(iOS 16.2, *)
func showAdventure(_ attributes: AdventureAttributes, _ state: AdventureAttributes.ContentState) throws
    -> Activity<AdventureAttributes> {
    try Activity.request(attributes: attributes, content: .init(state: state, staleDate: nil), pushType: .token)
}
#endif
