import Game
import Hummingbird
import Store
import Vocabulary

extension RangersAPI {
    /// The app started (or a push-to-start created) a Live Activity for one of the
    /// player's heroes in the adventure. 201 the first time; sending the same
    /// registration again answers 200 and changes nothing; the same activity with
    /// another token is a rotation.
    func registerActivity(_ request: Request, adventure: String) async throws -> Response {
        let player = try await auth.player(request)
        let body = try await body(RegisterActivityRequest.self, request)
        let token = try pushToken(body.pushToken)
        let language = try catalogLanguage(body.locale)
        let id = ActivityID(body.activityID)
        let existed = try await activityExists(id)
        let activity = try await store.registerLiveActivity(
            activityID: id, player: player.id, adventure: AdventureID(adventure), hero: body.hero, token: token,
            frequentUpdates: body.frequentPushesEnabled, locale: language, at: now())
        return try JSONCoding.response(ActivityView(activity), status: existed ? .ok : .created)
    }

    /// The app's `pushTokenUpdates` gave a new token: the old one is invalid from now on.
    func rotateToken(_ request: Request, activity: String) async throws -> Response {
        let player = try await auth.player(request)
        let body = try await body(RotateTokenRequest.self, request)
        let token = try pushToken(body.pushToken)
        let activity = try await store.rotateToken(activityID: ActivityID(activity), newToken: token, by: player.id, at: now())
        return try JSONCoding.response(ActivityView(activity))
    }

    /// The app's `activityStateUpdates` reported `.ended` or `.dismissed`.
    func reportActivityStatus(_ request: Request, activity: String) async throws -> Response {
        let player = try await auth.player(request)
        let body = try await body(ActivityStatusRequest.self, request)
        let activity = try await store.markActivity(ActivityID(activity), body.status.stored, by: player.id)
        return try JSONCoding.response(ActivityView(activity))
    }

    /// `Activity<AdventureAttributes>.pushToStartTokenUpdates` gave the device a
    /// token; it replaces the one the device had.
    func registerPushToStartToken(_ request: Request, device: String) async throws -> Response {
        let player = try await auth.player(request)
        let body = try await body(PushToStartTokenRequest.self, request)
        let token = try pushToken(body.pushToken)
        let language = try catalogLanguage(body.locale)
        let device = try await store.registerPushToStartToken(deviceID: DeviceID(device), player: player.id, token: token,
                                                              locale: language, at: now())
        return try JSONCoding.response(DeviceView(device))
    }

    private func activityExists(_ id: ActivityID) async throws -> Bool {
        do {
            _ = try await store.liveActivity(id)
            return true
        } catch StoreError.notFound {
            return false
        }
    }
}
