import Foundation
import Server
import Services
import Vocabulary

/// The followers' settings of `rangers serve` from the environment; unset ones
/// keep their defaults, a wrong one stops the start naming its variable.
enum FollowerEnvironment {
    static func settings(from environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(UsageError) -> FollowerSettings
    {
        var settings = FollowerSettings()
        func number(_ name: String) throws(UsageError) -> Int? {
            guard let text = environment[name] else { return nil }
            guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw UsageError("\(name): '\(text.prefix(40))' is not a whole number")
            }
            return value
        }
        if let value = try number("RANGERS_TOKEN_FOLLOWERS_PER_ADVENTURE") { settings.tokenFollowersPerAdventure = value }
        if let value = try number("RANGERS_CHANNEL_LIMIT") { settings.channelLimit = value }
        switch environment["RANGERS_CHANNEL_STORAGE"] {
        case nil: break
        case "most-recent": settings.channelStoragePolicy = .mostRecentMessageStored
        case "no-storage": settings.channelStoragePolicy = .noMessageStored
        case let other?: throw UsageError("RANGERS_CHANNEL_STORAGE: '\(other.prefix(40))' must be most-recent or no-storage")
        }
        switch environment["RANGERS_DELETE_UNKNOWN_CHANNELS"] {
        case nil: break
        case "on": settings.deletesUnknownChannels = true
        case "off": settings.deletesUnknownChannels = false
        case let other?: throw UsageError("RANGERS_DELETE_UNKNOWN_CHANNELS: '\(other.prefix(40))' must be on or off")
        }
        return settings
    }
}
