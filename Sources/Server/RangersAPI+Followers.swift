import Foundation
import Hummingbird
import PushPolicy
import Services
import Store
import Vocabulary

extension RangersAPI {
    /// A player outside the party follows a followable adventure with its code.
    /// From an app that can listen on a broadcast channel (iOS 18) the answer is
    /// the channel of the follower's language, made now if this is its first
    /// follower, with the attributes and state the activity starts with; when no
    /// channel can be had yet (APNs failing, the app's channel limit), 503 with
    /// `Retry-After`: the follow is kept and the channel made in the background.
    /// From an older app the follower's device gets a push-to-start, and its
    /// activity then registers its token as a member's does. 201 the first time,
    /// 200 when the player already followed.
    func follow(_ request: Request, adventure id: PathParameter<AdventureID>) async throws -> Response {
        let player = try await auth.player(request)
        let adventure = try id.checked()
        let body = try await body(FollowRequestBody.self, request)
        let language = body.locale
        let settings = configuration.followers
        func follow(_ how: FollowRequest.How) async throws -> Following {
            try await store.follow(FollowRequest(
                adventure: adventure, player: player.id, code: body.followCode.rawValue, language: language, how: how,
                tokenFollowersPerAdventure: settings.tokenFollowersPerAdventure, channelLimit: settings.channelLimit,
                storagePolicy: settings.channelStoragePolicy), at: now())
        }
        func perToken(_ following: Following, status: HTTPResponse.Status, channelUnavailable: String? = nil) throws -> Response {
            try JSONCoding.response(FollowingView(
                adventureID: adventure, player: player.id, delivery: following.follower.delivery, language: language,
                pushToStartQueued: following.queuedPushToStart, channelUnavailable: channelUnavailable), status: status)
        }
        guard body.broadcastChannel else {
            guard let device = body.deviceID else {
                throw APIError.invalidField("deviceID", "is missing: an app that cannot listen on a broadcast channel "
                    + "('broadcastChannel': true, iOS 18) follows through its device's push-to-start token")
            }
            let following = try await follow(pushToStart(device, player: player.id, language: language))
            return try perToken(following, status: following.wasFollowing ? .ok : .created)
        }
        let following = try await follow(.channel)
        let status: HTTPResponse.Status = following.wasFollowing ? .ok : .created
        guard let availability = following.channel else { return try perToken(following, status: status) }
        switch await channel(availability, of: following) {
        case .open(_, let apnsID):
            let pipeline = try TickPipeline(adventureID: adventure, setup: following.adventure.setup,
                                            startedAt: following.adventure.startedAt, content: content.game,
                                            strings: content.strings, configuration: configuration.pushPolicy)
            let view = pipeline.policy.followerView(state: following.adventure.state, language: language)
            return try JSONCoding.response(FollowingView(
                adventureID: adventure, player: player.id, delivery: .channel, language: language,
                channel: .init(id: apnsID, messageStoragePolicy: settings.channelStoragePolicy.rawValue),
                attributes: view.attributes, contentState: view.contentState,
                staleDate: view.staleDate.map { Date(timeIntervalSince1970: TimeInterval($0.seconds)) }), status: status)
        case .unavailable(let retryAt, let limitReached):
            let seconds = max(1, Int(retryAt.timeIntervalSince(now()).rounded(.up)))
            guard let device = body.deviceID, FollowerRules.fallsBackToToken(limitReached: limitReached) else {
                throw APIError.channelUnavailable(retryAfter: seconds, limitReached: limitReached)
            }
            let why = try? await store.followerChannels(of: adventure).first { $0.language == following.follower.language }?.note
            do {
                let fallback = try await follow(pushToStart(device, player: player.id, language: language))
                return try perToken(fallback, status: status, channelUnavailable: why ?? "no broadcast channel can be made now")
            } catch let refusal as StoreError {
                switch refusal {
                case .conflict, .notFound, .forbidden:
                    throw APIError.channelUnavailable(retryAfter: seconds, limitReached: false, fallbackRefused: refusal.description)
                case .invalid, .corrupt, .unavailable:
                    throw refusal
                }
            }
        case .beingMade, .create:
            throw APIError.channelUnavailable(retryAfter: 1, limitReached: false)
        }
    }

    /// A follow through the device's push-to-start token: the push that starts the
    /// follower's activity, built from the adventure as the follow finds it.
    private func pushToStart(_ device: DeviceID, player: PlayerID, language: String) -> FollowRequest.How {
        let (bundleID, content, policy) = (configuration.bundleID, content, configuration.pushPolicy)
        return .pushToStart(device: device) { adventure, device in
            let pipeline = try TickPipeline(adventureID: adventure.id, setup: adventure.setup, startedAt: adventure.startedAt,
                                            content: content.game, strings: content.strings, configuration: policy)
            let decision = try pipeline.policy.pushForFollowerStart(
                state: adventure.state, recipient: FollowerStartRecipient(player: player, language: language))
            return OutboxMessage(decision, target: .pushToStart(device), bundleID: bundleID)
        }
    }

    /// The channel for a follow: made now when the follow claimed it, or waited
    /// for a moment when another request (or node) is making it.
    private func channel(_ availability: ChannelAvailability, of following: Following) async -> ChannelAvailability {
        switch availability {
        case .open, .unavailable:
            return availability
        case .create(let creation):
            return await followerChannels.make(creation, bundleID: configuration.bundleID)
        case .beingMade:
            let deadline = ContinuousClock.now + configuration.followers.channelWait
            while ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(50))
                let channel = try? await store.followerChannels(of: following.adventure.id)
                    .first { $0.language == following.follower.language }
                if let channel, channel.state == .open, let apnsID = channel.apnsID { return .open(channel.id, apnsID) }
            }
            return .beingMade
        }
    }

    /// The follower leaves: their own activity gets nothing more. 204.
    func unfollow(_ request: Request, adventure id: PathParameter<AdventureID>) async throws -> Response {
        let player = try await auth.player(request)
        try await store.unfollow(try id.checked(), player: player.id, at: now())
        return Response(status: .noContent)
    }
}
