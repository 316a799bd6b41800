import Game
import Hummingbird
import Store
import Vocabulary

extension RangersAPI {
    /// The app started (or a push-to-start created) a Live Activity for one of the
    /// player's heroes in the adventure. 201 the first time; sending the same
    /// registration again answers 200 and changes nothing; the same activity with
    /// another token is a rotation.
    func registerActivity(_ request: Request, adventure: PathParameter<AdventureID>) async throws -> Response {
        let player = try await auth.player(request)
        let adventure = try adventure.checked()
        let body = try await body(RegisterActivityRequest.self, request)
        let existed = try await activityExists(body.activityID)
        let activity = try await store.registerLiveActivity(
            activityID: body.activityID, player: player.id, adventure: adventure, hero: body.hero, token: body.pushToken,
            frequentUpdates: body.frequentPushesEnabled, locale: body.locale, at: now())
        return try JSONCoding.response(ActivityView(activity), status: existed ? .ok : .created)
    }

    /// The app's `pushTokenUpdates` gave a new token: the old one is invalid from now on.
    func rotateToken(_ request: Request, activity: PathParameter<ActivityID>) async throws -> Response {
        let player = try await auth.player(request)
        let id = try activity.checked()
        let body = try await body(RotateTokenRequest.self, request)
        let activity = try await store.rotateToken(activityID: id, newToken: body.pushToken, by: player.id, at: now())
        return try JSONCoding.response(ActivityView(activity))
    }

    /// The app's `activityStateUpdates` reported `.ended` or `.dismissed`.
    func reportActivityStatus(_ request: Request, activity: PathParameter<ActivityID>) async throws -> Response {
        let player = try await auth.player(request)
        let id = try activity.checked()
        let body = try await body(ActivityStatusRequest.self, request)
        let activity = try await store.markActivity(id, body.status.stored, by: player.id)
        return try JSONCoding.response(ActivityView(activity))
    }

    /// `Activity<AdventureAttributes>.pushToStartTokenUpdates` gave the device a
    /// token; it replaces the one the device had.
    func registerPushToStartToken(_ request: Request, device: PathParameter<DeviceID>) async throws -> Response {
        let player = try await auth.player(request)
        let id = try device.checked()
        let body = try await body(PushToStartTokenRequest.self, request)
        let device = try await store.registerPushToStartToken(deviceID: id, player: player.id, token: body.pushToken,
                                                              locale: body.locale, at: now())
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
