import Foundation
import Game
import Vocabulary

/// What every engine refuses as malformed, and the API and its document say.
/// Lengths count Unicode code points, as JSON Schema's `maxLength` does, so the
/// document's limits are exactly these.
public enum StoredValueLimits {
    /// Code points in a player's or a party's name, as sent.
    public static let longestName = 64
    /// Characters in a locale or language tag; longer is not one.
    public static let longestLocale = 35
    /// Code points in an id the app makes (an activity's, a device's).
    public static let longestClientID = 128
    /// Members of one party: the game's largest party.
    public static let largestParty = AdventureSetup.partySizes.upperBound

    /// A player's or a party's name as kept: as sent at most `longestName` code
    /// points with no control character, then trimmed of surrounding white space
    /// (Unicode's White_Space: spaces of every width, line and paragraph
    /// separators), and not empty once trimmed.
    public static func checkedName(_ name: String) throws(StoreError) -> String {
        let scalars = name.unicodeScalars
        guard scalars.count <= longestName else { throw .invalid("a name is at most \(longestName) characters, not \(scalars.count)") }
        guard !scalars.contains(where: isControl) else {
            throw .invalid("a name must not contain control characters")
        }
        // By the Unicode property, not Foundation's set, which differs by platform.
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { throw .invalid("a name must not be empty or only spaces") }
        return String(scalars[first...last])
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

    /// An id the app made for its activity or device: 1…`longestClientID` code
    /// points, none of them a control character (anything else, a space, a slash
    /// or any script, is the app's to choose). `kind` names it in the refusal
    /// ("an activity id").
    public static func checkClientID(_ id: String, kind: String) throws(StoreError) {
        let length = id.unicodeScalars.count
        guard (1...longestClientID).contains(length) else {
            throw .invalid("\(kind) is 1…\(longestClientID) characters, not \(length)")
        }
        guard !id.unicodeScalars.contains(where: isControl) else {
            throw .invalid("\(kind) must not contain control characters")
        }
    }

    public static func checkActivityID(_ id: ActivityID) throws(StoreError) {
        try checkClientID(id.rawValue, kind: "an activity id")
    }

    public static func checkDeviceID(_ id: DeviceID) throws(StoreError) {
        try checkClientID(id.rawValue, kind: "a device id")
    }

    /// Unicode's control characters (general category Cc: U+0000–U+001F and
    /// U+007F–U+009F), which no name or id may hold.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control
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
