import Foundation

/// The JSON body of a Push To Talk push: the app's own keys at the root and an
/// empty `aps`. The app's channel manager hands the root keys to the app,
/// which decides from them who is speaking or whether to leave the channel.
public struct PushToTalkPayload: Codable, Hashable, Sendable {
    /// Push To Talk is delivered as a VoIP push, which allows more than a Live Activity.
    public static let sizeLimit = 5120

    /// The player now talking, so the system UI can show them before audio arrives.
    public struct ActiveSpeaker: Codable, Hashable, Sendable {
        public var playerID: String
        public var playerName: String
        public var heroName: String
        /// The hero's emoji, e.g. "🐼".
        public var avatar: String

        public init(playerID: String, playerName: String, heroName: String, avatar: String) {
            self.playerID = playerID
            self.playerName = playerName
            self.heroName = heroName
            self.avatar = avatar
        }
    }

    public var activeSpeaker: ActiveSpeaker?
    /// Identifies one transmission, so the app can match the audio stream to this push.
    public var transmissionID: String?
    public var channelID: String?
    /// Tells the app to leave the channel, e.g. when the adventure has ended.
    public var leaveChannel: Bool

    public init(
        activeSpeaker: ActiveSpeaker? = nil, transmissionID: String? = nil,
        channelID: String? = nil, leaveChannel: Bool = false
    ) {
        self.activeSpeaker = activeSpeaker
        self.transmissionID = transmissionID
        self.channelID = channelID
        self.leaveChannel = leaveChannel
    }

    private enum CodingKeys: String, CodingKey {
        case aps, activeSpeaker, transmissionID, channelID, leaveChannel
    }

    private enum NoKeys: CodingKey {}

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        // APNs wants an `aps` dictionary in every push; here it has nothing to say.
        _ = container.nestedContainer(keyedBy: NoKeys.self, forKey: .aps)
        try container.encodeIfPresent(activeSpeaker, forKey: .activeSpeaker)
        try container.encodeIfPresent(transmissionID, forKey: .transmissionID)
        try container.encodeIfPresent(channelID, forKey: .channelID)
        try container.encode(leaveChannel, forKey: .leaveChannel)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        activeSpeaker = try container.decodeIfPresent(ActiveSpeaker.self, forKey: .activeSpeaker)
        transmissionID = try container.decodeIfPresent(String.self, forKey: .transmissionID)
        channelID = try container.decodeIfPresent(String.self, forKey: .channelID)
        leaveChannel = try container.decodeIfPresent(Bool.self, forKey: .leaveChannel) ?? false
    }
}

extension PushToTalkPayload: MeasuredPayload {
    static let kindName = "Push To Talk"

    var measuredParts: [MeasuredPart] {
        var parts: [MeasuredPart] = []
        if let activeSpeaker {
            parts.append(MeasuredPart(name: "activeSpeaker", value: activeSpeaker, fields: [
                ("playerID", activeSpeaker.playerID), ("playerName", activeSpeaker.playerName),
                ("heroName", activeSpeaker.heroName), ("avatar", activeSpeaker.avatar),
            ]))
        }
        if let transmissionID {
            parts.append(MeasuredPart(name: "transmissionID", value: transmissionID, fields: []))
        }
        if let channelID {
            parts.append(MeasuredPart(name: "channelID", value: channelID, fields: []))
        }
        return parts
    }
}
