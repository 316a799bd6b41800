import Foundation
import Services

/// The party walkie-talkie's limits: what an upload may be and how long its audio
/// is kept.
public struct PushToTalkSettings: Hashable, Sendable {
    /// Larger uploads are refused with 413 before they are read whole.
    public var maximumAudioBytes: Int
    /// A longer message is refused: the channel is the speaker's for this long at most.
    public var longestTransmission: Duration
    /// Audio older than this is deleted; the record that it was sent stays.
    public var audioRetention: Duration
    /// `Content-Type`s an upload may have: what iOS records and plays without a codec of the app's own.
    public var audioContentTypes: Set<String>

    public static let defaultAudioContentTypes: Set<String> = ["audio/aac", "audio/mp4", "audio/mpeg", "audio/wav", "audio/x-caf"]

    public init(maximumAudioBytes: Int = 1 << 20, longestTransmission: Duration = .seconds(60),
                audioRetention: Duration = .seconds(24 * 3600),
                audioContentTypes: Set<String> = PushToTalkSettings.defaultAudioContentTypes) {
        self.maximumAudioBytes = maximumAudioBytes
        self.longestTransmission = longestTransmission
        self.audioRetention = audioRetention
        self.audioContentTypes = audioContentTypes
    }

    var problems: [ConfigurationProblem] {
        var problems: [ConfigurationProblem] = []
        func require(_ ok: Bool, _ setting: String, _ message: String) {
            if !ok { problems.append(ConfigurationProblem(setting: setting, message: message)) }
        }
        require((1024...(64 << 20)).contains(maximumAudioBytes), "pushToTalk.maximumAudioBytes",
                "must be 1 KiB…64 MiB, not \(maximumAudioBytes) bytes")
        require(longestTransmission >= .seconds(1) && longestTransmission <= .seconds(600), "pushToTalk.longestTransmission",
                "must be 1…600 seconds")
        require(audioRetention >= .seconds(60), "pushToTalk.audioRetention", "must be at least a minute")
        require(!audioContentTypes.isEmpty, "pushToTalk.audioContentTypes", "must allow at least one content type")
        return problems
    }
}
