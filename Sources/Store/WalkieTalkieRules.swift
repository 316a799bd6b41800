import Foundation
import Game
import PushPolicy
import Vocabulary

/// What both engines decide the same way on a party's walkie-talkie: each engine
/// reads the channel, the speaker's membership and who listens (under its own
/// locks), this says what is refused and what is written; who may talk and who
/// hears is `WalkieTalkiePolicy`'s.
public enum WalkieTalkieRules {
    /// Only the party's members use its channel: `hero` is the player's in the
    /// party, nil when they are not in it.
    public static func member(hero: HeroID?) throws(StoreError) -> HeroID {
        guard let hero else { throw .forbidden("only members of the party can use its channel") }
        return hero
    }

    /// No one joins a closed channel.
    public static func checkJoin(_ channel: ChannelID, closedAt: Date?) throws(StoreError) {
        guard closedAt == nil else { throw .conflict("channel \(channel) is closed") }
    }

    /// A transmission to store: until when it holds the channel, and the
    /// listeners to push it to.
    public struct Transmitting: Hashable, Sendable {
        public var speakingUntil: Date
        public var recipients: [ChannelMember]
    }

    /// Refused with `WalkieTalkiePolicy.Refusal` when the channel is closed, the
    /// speaker is not listening, or another member's message is still playing
    /// (`speakingNow`: whose messages play at `now`).
    public static func transmit(_ new: NewTransmission, at now: Date, channelClosed: Bool, listeners: [ChannelMember],
                                speakingNow: [PlayerID]) throws(WalkieTalkiePolicy.Refusal) -> Transmitting {
        if let refusal = WalkieTalkiePolicy.refusal(
            speaker: new.speaker, channelClosed: channelClosed,
            speakerIsListening: listeners.contains { $0.player == new.speaker }, speakingNow: speakingNow) {
            throw refusal
        }
        return Transmitting(
            speakingUntil: WalkieTalkiePolicy.speakingUntil(recordedAt: now, durationMilliseconds: new.durationMilliseconds),
            recipients: listeners.filter { WalkieTalkiePolicy.hears($0.player, messageOf: new.speaker) })
    }
}
