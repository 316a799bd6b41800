import Foundation
import Game
import Vocabulary

public struct Channel: Hashable, Sendable, Codable {
    public var id: ChannelID
    public var party: PartyID
    public var createdAt: Date
    /// Set when a game master closed it; no one joins a closed channel.
    public var closedAt: Date?

    public init(id: ChannelID, party: PartyID, createdAt: Date, closedAt: Date? = nil) {
        self.id = id
        self.party = party
        self.createdAt = createdAt
        self.closedAt = closedAt
    }
}

public enum ChannelMemberStatus: String, Hashable, Sendable, Codable {
    /// Listening: receives a push for each other member's transmission.
    case joined
    /// Told to leave; the leave push is on its way and the token is kept until then.
    case leaving
    case left
}

public struct ChannelMember: Hashable, Sendable {
    public var id: ChannelMemberID
    public var channel: ChannelID
    public var player: PlayerID
    public var status: ChannelMemberStatus
    /// The ephemeral token the system gave the app for this channel; nil once left or invalid.
    public var token: PushToken?
    public var joinedAt: Date

    public init(id: ChannelMemberID, channel: ChannelID, player: PlayerID, status: ChannelMemberStatus, token: PushToken? = nil, joinedAt: Date) {
        self.id = id
        self.channel = channel
        self.player = player
        self.status = status
        self.token = token
        self.joinedAt = joinedAt
    }
}

/// A recorded message as uploaded, before it is stored: it holds audio and lasts
/// some time, or it is no message.
public struct NewTransmission: Sendable {
    public var id: TransmissionID
    public var channel: ChannelID
    public var speaker: PlayerID
    public var contentType: String
    public let durationMilliseconds: Int
    public let audio: Data

    public init(id: TransmissionID = .random(), channel: ChannelID, speaker: PlayerID, contentType: String,
                durationMilliseconds: Int, audio: Data) throws(StoreError) {
        guard durationMilliseconds > 0, !audio.isEmpty else {
            throw .invalid("a transmission has audio and a positive duration")
        }
        self.id = id
        self.channel = channel
        self.speaker = speaker
        self.contentType = contentType
        self.durationMilliseconds = durationMilliseconds
        self.audio = audio
    }
}

public struct Transmission: Hashable, Sendable {
    public var id: TransmissionID
    public var channel: ChannelID
    public var speaker: PlayerID
    /// The speaker's hero in the party, for the "who is talking" line.
    public var hero: HeroID
    public var contentType: String
    public var durationMilliseconds: Int
    public var byteCount: Int
    public var createdAt: Date
    /// Until then the channel is the speaker's: another member's upload is refused.
    public var speakingUntil: Date
    /// Nil once the retention period removed it.
    public var audio: Data?

    public init(id: TransmissionID, channel: ChannelID, speaker: PlayerID, hero: HeroID, contentType: String, durationMilliseconds: Int, byteCount: Int, createdAt: Date, speakingUntil: Date, audio: Data? = nil) {
        self.id = id
        self.channel = channel
        self.speaker = speaker
        self.hero = hero
        self.contentType = contentType
        self.durationMilliseconds = durationMilliseconds
        self.byteCount = byteCount
        self.createdAt = createdAt
        self.speakingUntil = speakingUntil
        self.audio = audio
    }
}
