import Game
import Vocabulary

/// What both engines decide the same way about a player's heroes: each engine
/// reads the player's memberships (under its own locks), this says what a pick
/// keeps and whether it may.
public enum PlayerRules {
    /// The heroes a pick keeps: each once, in a stable order, at least one.
    /// Which heroes exist is the content's business: the API checks that first.
    public static func heroPick(_ heroes: [HeroID]) throws(StoreError) -> [HeroID] {
        let chosen = Array(Set(heroes)).sorted()
        guard !chosen.isEmpty else { throw .invalid("pick at least one hero") }
        return chosen
    }

    /// A pick may not drop a hero the player plays in one of their parties
    /// (`inUse`, one per membership): leaving the party comes first.
    public static func checkPick(_ chosen: [HeroID], inUse: [HeroID]) throws(StoreError) {
        if let kept = inUse.first(where: { !chosen.contains($0) }) {
            throw .conflict("hero '\(kept)' plays in one of your parties; leave it before dropping the hero")
        }
    }

    /// A hero a player brings to a party (creating or joining it) is one they picked.
    public static func checkPicked(_ hero: HeroID, isPicked: Bool) throws(StoreError) {
        guard isPicked else { throw .forbidden("hero '\(hero)' is not one of your heroes; pick it first") }
    }
}
