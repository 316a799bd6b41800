import Game
import Store
import Testing
import Vocabulary

@Suite struct PlayerRulesTests {
    @Test func aPickKeepsEachHeroOnceInOrderAndAtLeastOne() throws {
        #expect(try PlayerRules.heroPick([spouty, panda, spouty]) == [panda, spouty])
        #expect(refusal { try PlayerRules.heroPick([]) } == .invalid("pick at least one hero"))
    }

    @Test func aPickMayNotDropAHeroInUse() {
        #expect(refusal { try PlayerRules.checkPick([panda, spouty], inUse: [spouty]) } == nil)
        #expect(refusal { try PlayerRules.checkPick([panda], inUse: [spouty]) }
            == .conflict("hero 'spouty' plays in one of your parties; leave it before dropping the hero"))
    }

    @Test func aHeroBroughtToAPartyIsAPickedOne() {
        #expect(refusal { try PlayerRules.checkPicked(panda, isPicked: true) } == nil)
        #expect(refusal { try PlayerRules.checkPicked(panda, isPicked: false) }
            == .forbidden("hero 'power-panda' is not one of your heroes; pick it first"))
    }
}

@Suite struct PartyRulesTests {
    private func party(_ members: [PartyMember], picked: Bool = true, running: Bool = false) -> PartyRules.JoinReading {
        PartyRules.JoinReading(partyName: "Owls", members: members, heroIsPicked: picked, adventureIsRunning: running)
    }

    private let founder = PartyMember(player: ada, hero: panda)

    @Test func aNewcomerWithAPickedFreeHeroJoins() throws {
        #expect(try PartyRules.join(PartyMember(player: bo, hero: egghead), party([founder])) == .addMember)
    }

    @Test func joiningAgainWithTheSameHeroChangesNothingAndWithAnotherIsRefused() throws {
        // Checked first: a member is not refused for a party that has since filled or set off.
        #expect(try PartyRules.join(founder, party([founder], picked: false, running: true)) == .alreadyMember)
        #expect(refusal { try PartyRules.join(PartyMember(player: ada, hero: egghead), party([founder])) }
            == .conflict("you are already in party 'Owls' with hero 'power-panda'"))
    }

    @Test func aHeroNotPickedOrTakenIsRefused() {
        #expect(refusal { try PartyRules.join(PartyMember(player: bo, hero: egghead), party([founder], picked: false)) }
            == .forbidden("hero 'egghead' is not one of your heroes; pick it first"))
        #expect(refusal { try PartyRules.join(PartyMember(player: bo, hero: panda), party([founder])) }
            == .conflict("hero 'power-panda' is already in party 'Owls'"))
    }

    @Test func aFullPartyOrOneOnAnAdventureTakesNoOne() {
        let six = (0..<StoredValueLimits.largestParty).map { PartyMember(player: PlayerID("p\($0)"), hero: HeroID("h\($0)")) }
        #expect(refusal { try PartyRules.join(PartyMember(player: bo, hero: egghead), party(six)) }
            == .conflict("party 'Owls' is full (\(StoredValueLimits.largestParty) members)"))
        #expect(refusal { try PartyRules.join(PartyMember(player: bo, hero: egghead), party([founder], running: true)) }
            == .conflict("party 'Owls' is on an adventure; join when it has ended"))
    }
}
