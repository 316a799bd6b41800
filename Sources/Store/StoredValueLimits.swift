import Game

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
}
