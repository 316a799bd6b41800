import Foundation
import Game
import Vocabulary

/// What every engine refuses as malformed, and the API and its document say.
public enum StoredValueLimits {
    /// Characters in a player's or a party's name.
    public static let longestName = 64
    /// Characters in a locale or language tag; longer is not one.
    public static let longestLocale = 35
    /// Bytes in an id the app makes (an activity's, a device's).
    public static let longestClientID = 128
    /// Members of one party: the game's largest party.
    public static let largestParty = AdventureSetup.partySizes.upperBound

    /// A player's or a party's name as kept: trimmed, not empty, at most
    /// `longestName` characters, no control characters.
    public static func checkedName(_ name: String) throws(StoreError) -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .invalid("a name must not be empty") }
        guard trimmed.count <= longestName else { throw .invalid("a name is at most \(longestName) characters") }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalid("a name must not contain control characters")
        }
        return trimmed
    }

    /// The language a device's or an activity's texts use, as kept: a tag such as
    /// `en` or `zh-Hans`, at most `longestLocale` characters.
    public static func checkedLocale(_ locale: String) throws(StoreError) -> String {
        guard !locale.isEmpty, locale.utf8.count <= longestLocale,
              locale.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || $0 == "-" || $0 == "_") })
        else { throw .invalid("a locale is a language tag like 'en' or 'zh-Hans', not '\(locale.prefix(40))'") }
        return locale
    }

    /// A Live Activity without a hero is a follower's: only a player who follows
    /// the adventure per token (`delivery`; nil when not following) has one.
    public static func checkFollowerActivity(delivery: FollowerDelivery?, adventure: AdventureID) throws(StoreError) {
        switch delivery {
        case .token?: return
        case .channel?:
            throw .conflict("you follow adventure \(adventure) on its broadcast channel: your activity listens there and registers no token")
        case nil:
            throw .forbidden("an activity without a hero is a follower's; you do not follow adventure \(adventure)")
        }
    }

    /// An id the app made for its activity or device: 1…`longestClientID` bytes.
    /// `kind` names it in the refusal ("an activity id").
    public static func checkClientID(_ id: String, kind: String) throws(StoreError) {
        guard !id.isEmpty, id.utf8.count <= longestClientID else {
            throw .invalid("\(kind) is 1…\(longestClientID) characters")
        }
    }

    /// What an adventure must be to be stored at its start: a setup the game can
    /// play (party size, times), a running state at tick 0, a plausible start time
    /// (unix seconds of this century; far larger would overflow tick times), and
    /// the content version it runs with.
    public static func checkNewAdventure(setup: AdventureSetup, state: AdventureState, startedAt: Int,
                                         contentVersion: String) throws(StoreError) {
        do {
            try setup.checkShape()
        } catch {
            throw .invalid(error.description)
        }
        guard state.tick == 0, state.isRunning else {
            throw .invalid("an adventure starts from a running state at tick 0, not tick \(state.tick) (\(state.status.rawValue))")
        }
        guard (0...(1 << 40)).contains(startedAt) else { throw .invalid("start time \(startedAt) is not a plausible unix time") }
        guard !contentVersion.isEmpty else { throw .invalid("an adventure records the content version it runs with") }
    }
}
