import Game
import Vocabulary

/// What both engines decide the same way when a player joins a party: each
/// engine reads the party and its members (under its own locks), this says
/// whether the join is refused, changes nothing, or adds a member.
public enum PartyRules {
    /// What an engine read of the party a code names, for one join.
    public struct JoinReading: Hashable, Sendable {
        public var partyName: String
        /// Everyone in the party now, the joining player too if they are in it.
        public var members: [PartyMember]
        /// Whether the joining player picked the hero they join with.
        public var heroIsPicked: Bool
        public var adventureIsRunning: Bool

        public init(partyName: String, members: [PartyMember], heroIsPicked: Bool, adventureIsRunning: Bool) {
            self.partyName = partyName
            self.members = members
            self.heroIsPicked = heroIsPicked
            self.adventureIsRunning = adventureIsRunning
        }
    }

    public enum Join: Hashable, Sendable {
        /// The player is in the party with that hero already: nothing changes.
        case alreadyMember
        /// Add the player with the hero.
        case addMember
    }

    /// Joining again with the same hero changes nothing. Otherwise the hero is one
    /// the player picked and no member's, the party has room, and it is not on an
    /// adventure: its roster was fixed at the start (a replay depends on it), so a
    /// newcomer would have no hero in the fight and only hear about others.
    public static func join(_ member: PartyMember, _ party: JoinReading) throws(StoreError) -> Join {
        if let existing = party.members.first(where: { $0.player == member.player }) {
            guard existing.hero == member.hero else {
                throw .conflict("you are already in party '\(party.partyName)' with hero '\(existing.hero)'")
            }
            return .alreadyMember
        }
        try PlayerRules.checkPicked(member.hero, isPicked: party.heroIsPicked)
        if party.members.contains(where: { $0.hero == member.hero }) {
            throw .conflict("hero '\(member.hero)' is already in party '\(party.partyName)'")
        }
        guard party.members.count < StoredValueLimits.largestParty else {
            throw .conflict("party '\(party.partyName)' is full (\(StoredValueLimits.largestParty) members)")
        }
        guard !party.adventureIsRunning else {
            throw .conflict("party '\(party.partyName)' is on an adventure; join when it has ended")
        }
        return .addMember
    }
}
