import Foundation
import Vocabulary
import Wire

/// The party walkie-talkie's rules: who may talk and when, who hears a message,
/// and what each of its pushes is. Pure; the store applies them inside the
/// transaction that records a message or queues a push, so no rule can be
/// overtaken between a check and a write.
public enum WalkieTalkiePolicy {
    /// Why a member may not talk now.
    public enum Refusal: Error, Hashable, Sendable, CustomStringConvertible {
        /// A game master closed the party's channel.
        case channelClosed
        /// Only a member who has joined the channel may talk in it.
        case notListening
        /// One speaker at a time: another member's message is still playing.
        case someoneElseIsSpeaking(PlayerID)

        public var description: String {
            switch self {
            case .channelClosed: "the party's channel is closed"
            case .notListening: "join the party's channel before talking in it"
            case .someoneElseIsSpeaking(let player): "player \(player) is speaking; wait until they finish"
            }
        }
    }

    /// Nil when `speaker` may talk now. `speakingNow` are the members whose message
    /// is still playing (the speaker themselves may talk over their own).
    public static func refusal(speaker: PlayerID, channelClosed: Bool, speakerIsListening: Bool,
                               speakingNow: [PlayerID]) -> Refusal? {
        if channelClosed { return .channelClosed }
        if !speakerIsListening { return .notListening }
        if let other = speakingNow.first(where: { $0 != speaker }) { return .someoneElseIsSpeaking(other) }
        return nil
    }

    /// A message holds the channel for its own length from the moment it is recorded.
    public static func speakingUntil(recordedAt: Date, durationMilliseconds: Int) -> Date {
        recordedAt.addingTimeInterval(Double(durationMilliseconds) / 1000)
    }

    /// Who hears a message: every member listening but its speaker.
    public static func hears(_ listener: PlayerID, messageOf speaker: PlayerID) -> Bool { listener != speaker }

    /// Whether a member still gets a push: a listening member gets every one; a
    /// member told to leave gets nothing more but that leave push itself.
    public static func reaches(isListening: Bool, isLeaving: Bool, isLeavePush: Bool) -> Bool {
        isListening || (isLeaving && isLeavePush)
    }

    /// Tells a listener's phone that `speaker` has a new message: the system shows
    /// who is talking at once and the app fetches the audio. The same body for
    /// every listener.
    public static func announcement(of transmission: TransmissionID, in channel: ChannelID,
                                    by speaker: PushToTalkPayload.ActiveSpeaker) throws -> WalkieTalkiePush {
        let body = try PayloadEncoder().encode(PushToTalkPayload(activeSpeaker: speaker, transmissionID: transmission.rawValue,
                                                                 channelID: channel.rawValue))
        return WalkieTalkiePush(body: body, reason: "\(speaker.playerName) is talking", isLeave: false)
    }

    /// Tells a member's phone to leave the channel (the adventure ended, the member
    /// left the party, a game master closed the channel).
    public static func leaveChannel(_ channel: ChannelID, reason: String) throws -> WalkieTalkiePush {
        let body = try PayloadEncoder().encode(PushToTalkPayload(channelID: channel.rawValue, leaveChannel: true))
        return WalkieTalkiePush(body: body, reason: reason, isLeave: true)
    }
}

/// One walkie-talkie push. Push To Talk pushes are `pushtotalk`, priority 10, and
/// expire at once: a late "someone is talking" is worse than none. None is ever
/// superseded; a leave push ends the member's part in the channel.
public struct WalkieTalkiePush: Hashable, Sendable {
    public var pushType: PushType { .pushtotalk }
    public var priority: Priority { .high }
    /// `apns-expiration` 0: delivered now or never.
    public var expiration: Int { 0 }
    public let body: Data
    public let reason: String
    public let isLeave: Bool
}
