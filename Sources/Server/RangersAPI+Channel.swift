import Foundation
import Game
import Hummingbird
import Prometheus
import PushPolicy
import Services
import Store
import Vocabulary
import Wire

/// The party's walkie-talkie. The app joins the party's channel with the ephemeral
/// token the system gave it, uploads what its player recorded, and fetches what
/// the others recorded when a `pushtotalk` push says there is something new.
extension RangersAPI {
    func channel(_ request: Request, party id: PathParameter<PartyID>) async throws -> Response {
        let player = try await auth.player(request)
        let party = try await memberParty(try id.checked(), player: player)
        return try JSONCoding.response(try await channelView(party, try await store.channel(of: party.id, at: now())))
    }

    /// Joins, or replaces the token of a member who had joined: the system hands
    /// out a new token whenever the app joins again.
    func joinChannel(_ request: Request, party id: PathParameter<PartyID>) async throws -> Response {
        let player = try await auth.player(request)
        let party = try await memberParty(try id.checked(), player: player)
        let body = try await body(JoinChannelRequest.self, request)
        let channel = try await store.channel(of: party.id, at: now())
        try await store.joinChannel(channel.id, player: player.id, token: body.pushToken, at: now())
        return try JSONCoding.response(try await channelView(party, channel))
    }

    /// The app left by itself (its user tapped Leave): no push, the token is dropped.
    func leaveChannel(_ request: Request, party id: PathParameter<PartyID>) async throws -> Response {
        let player = try await auth.player(request)
        let party = try await memberParty(try id.checked(), player: player)
        let channel = try await store.channel(of: party.id, at: now())
        try await store.leaveChannel(channel.id, player: player.id, at: now())
        return Response(status: .noContent)
    }

    /// Stores a recorded message and queues a `pushtotalk` push to every other
    /// member listening, in one transaction. The body is the audio itself, its
    /// `Content-Type` one of the allowed audio types, its length in
    /// `?durationMilliseconds=`.
    func uploadTransmission(_ request: Request, party id: PathParameter<PartyID>) async throws -> Response {
        let player = try await auth.player(request)
        let party = try await memberParty(try id.checked(), player: player)
        let settings = configuration.pushToTalk
        let contentType = request.headers[.contentType]?.split(separator: ";").first
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard let contentType, settings.audioContentTypes.contains(contentType) else {
            throw APIError(.unsupportedMediaType, "unsupportedAudioType",
                           "the audio's Content-Type must be one of \(settings.audioContentTypes.sorted().joined(separator: ", "))")
        }
        let longest = Int(settings.longestTransmission.components.seconds) * 1000
        guard let text = request.uri.queryParameters["durationMilliseconds"] else {
            throw APIError.invalidField("durationMilliseconds", "is missing: the query gives the message's length in milliseconds")
        }
        guard let duration = Int(text), (1...longest).contains(duration) else {
            throw APIError.invalidField("durationMilliseconds", "must be the message's length in milliseconds, 1…\(longest)")
        }
        let audio = try await JSONCoding.body(of: request, limit: settings.maximumAudioBytes)
        guard !audio.isEmpty else { throw APIError(.badRequest, "invalidInput", "the body must be the recorded audio") }

        let channel = try await store.channel(of: party.id, at: now())
        let hero = try await store.membership(of: player.id, in: party.id)?.hero
        let definition = hero.flatMap { content.game.hero($0) }
        let speaker = PushToTalkPayload.ActiveSpeaker(playerID: player.id.rawValue, playerName: player.name,
                                                      heroName: definition?.name ?? hero?.rawValue ?? "",
                                                      avatar: definition?.avatar ?? "")
        let new = try NewTransmission(channel: channel.id, speaker: player.id, contentType: contentType,
                                  durationMilliseconds: duration, audio: audio)
        let announcement = try WalkieTalkiePolicy.announcement(of: new.id, in: channel.id, by: speaker)
        let bundleID = configuration.bundleID
        let transmission: Transmission
        do {
            transmission = try await store.recordTransmission(new, at: now()) { listener, _ in
                OutboxMessage(announcement, to: listener.id, bundleID: bundleID)
            }
        } catch let refusal as WalkieTalkiePolicy.Refusal {
            let code = switch refusal {
            case .channelClosed: "channelClosed"
            case .notListening: "notInChannel"
            case .someoneElseIsSpeaking: "conflict"
            }
            throw APIError(.conflict, code, refusal.description)
        }
        metrics.makeCounter(descriptor: Self.transmissions, labels: [("content_type", contentType)]).increment()
        return try JSONCoding.response(TransmissionView(transmission), status: .created)
    }

    /// A recorded message's audio, for members of the party.
    func transmissionAudio(_ request: Request, party id: PathParameter<PartyID>,
                           transmission: PathParameter<TransmissionID>) async throws -> Response {
        let player = try await auth.player(request)
        let party = try await memberParty(try id.checked(), player: player)
        let transmission = try transmission.checked()
        let found = try await store.transmission(transmission, for: player.id)
        guard found.channel == (try await store.channel(of: party.id, at: now())).id else {
            throw APIError(.notFound, "notFound", "no transmission \(transmission) in this party's channel")
        }
        guard let audio = found.audio else {
            throw APIError(.gone, "audioDeleted", "this message's audio was deleted after the retention period")
        }
        return Response(status: .ok, headers: [.contentType: found.contentType],
                        body: .init(byteBuffer: ByteBuffer(bytes: audio)))
    }

    /// The game master closes the party's channel: every member still listening
    /// gets a push telling their app to leave, then their token is dropped.
    func closeChannel(_ request: Request, party id: PathParameter<PartyID>) async throws -> Response {
        try auth.gameMaster(request)
        let party = try await store.party(try id.checked())
        try await closeWalkieTalkie(of: party.id)
        // Read again: closing set its closedAt.
        let closed = try await store.channel(of: party.id, at: now())
        return try JSONCoding.response(try await channelView(party, closed), status: .accepted)
    }

    /// Closes the party's channel, each listener told to leave: for the API and the console alike.
    func closeWalkieTalkie(of party: PartyID) async throws {
        let channel = try await store.channel(of: party, at: now())
        let bundleID = configuration.bundleID
        try await store.closeChannel(channel.id, at: now()) { member in
            OutboxMessage.leaveChannel(member, bundleID: bundleID, reason: "the game master closed the channel")
        }
    }

    /// Whether a message sent now would reach the others: the app shows
    /// "reconnecting" while it is not `available`.
    func pushToTalkStatus(_ request: Request) async throws -> Response {
        _ = try await auth.playerOrGameMaster(request)
        return try JSONCoding.response(ServiceStatusView(deliveryHealth))
    }

    private func channelView(_ party: Party, _ channel: Channel) async throws -> ChannelView {
        let members = try await store.members(of: party.id)
        let listening = Set(try await store.channelMembers(of: channel.id).map(\.player))
        let heroes = members.compactMap { content.game.hero($0.hero) }
        return ChannelView(
            id: channel.id, partyID: party.id, name: party.name, image: heroes.map(\.avatar).joined(),
            closed: channel.closedAt != nil,
            members: members.map { ChannelView.Member(player: $0.player, hero: $0.hero, listening: listening.contains($0.player)) },
            service: ServiceStatusView(deliveryHealth))
    }

    static var transmissions: MetricNameDescriptor {
        MetricNameDescriptor(namespace: "rangers", subsystem: "ptt", metricName: "transmissions", unitName: "total",
                             helpText: "Push To Talk messages stored and announced, by audio type")
    }
}

struct ServiceStatusView: Codable {
    var status: DeliveryHealth.Status
    var since: Date

    init(_ health: DeliveryHealth) {
        (status, since) = health.status
    }
}

struct ChannelView: Codable {
    struct Member: Codable {
        var player: PlayerID
        var hero: HeroID
        /// Joined with a token that is still valid: gets a push for each message.
        var listening: Bool
    }

    /// The UUID the app gives the system's channel descriptor.
    var id: ChannelID
    var partyID: PartyID
    /// What the system UI shows: the party's name …
    var name: String
    /// … and its heroes' avatars, for the app to draw as the channel's image.
    var image: String
    var closed: Bool
    var members: [Member]
    var service: ServiceStatusView
}

struct TransmissionView: Codable {
    var id: TransmissionID
    var channelID: ChannelID
    var speaker: PlayerID
    var hero: HeroID
    var contentType: String
    var durationMilliseconds: Int
    var byteCount: Int
    var createdAt: Date
    /// Until then the channel is the speaker's; others' uploads are refused.
    var speakingUntil: Date

    init(_ transmission: Transmission) {
        id = transmission.id
        channelID = transmission.channel
        speaker = transmission.speaker
        hero = transmission.hero
        contentType = transmission.contentType
        durationMilliseconds = transmission.durationMilliseconds
        byteCount = transmission.byteCount
        createdAt = transmission.createdAt
        speakingUntil = transmission.speakingUntil
    }
}
