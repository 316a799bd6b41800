import Foundation
import Game
import Store
import Testing
import Vocabulary

@Suite struct FollowerRulesTests {
    private let code = FollowCode.random()

    private func adventure(status: AdventureStatus = .running, followCode: FollowCode?) -> StoredAdventure {
        let setup = AdventureSetup(route: "woods", party: [PartyMember(player: ada, hero: panda)], tickInterval: 2,
                                   timeLimit: 600, seed: 1)
        return StoredAdventure(id: "a1", party: "p1", setup: setup, contentVersion: "c", startedAt: 0,
                               state: state(tick: 3, status: status), lastTick: 3, followCode: followCode)
    }

    @Test func aPlayerOutsideThePartyFollowsARunningFollowableAdventureWithItsCode() {
        #expect(refusal { try FollowerRules.checkFollow(code: code.rawValue, of: adventure(followCode: code), by: cy, isMember: false) }
            == nil)
        #expect(refusal { try FollowerRules.checkFollow(code: code.rawValue, of: adventure(followCode: nil), by: cy, isMember: false) }
            == .forbidden("adventure a1 is private: only its party follows it"))
        #expect(refusal {
            try FollowerRules.checkFollow(code: code.rawValue, of: adventure(status: .victory, followCode: code), by: cy, isMember: false)
        } == .conflict("adventure a1 has ended (victory); it can no longer be followed"))
    }

    @Test func aMemberNowOrInTheRosterIsInTheParty() {
        let inParty = StoreError.conflict("you are in the party of adventure a1: members get their own pushes, not a follower's")
        #expect(refusal { try FollowerRules.checkFollow(code: code.rawValue, of: adventure(followCode: code), by: ada, isMember: false) }
            == inParty)
        #expect(refusal { try FollowerRules.checkFollow(code: code.rawValue, of: adventure(followCode: code), by: bo, isMember: true) }
            == inParty)
    }

    @Test func aFollowPerTokenWakesTheDeviceUntilItsActivityRegistered() {
        #expect(FollowerRules.wakesDevice(activityRegistered: false))
        #expect(!FollowerRules.wakesDevice(activityRegistered: true))
    }
}

@Suite struct ChannelCreationRulesTests {
    private let now = Date(timeIntervalSince1970: 1_000)

    private func creation(_ state: FollowerChannelState, alive: Bool = false, runsOutIn seconds: TimeInterval = -1,
                          wanted: Bool = true, inUse: Int = 0, limit: Int = 2) -> (step: FollowerRules.Creation, inUse: Int) {
        FollowerRules.creation(state: state, claimantIsAlive: alive, nextAttemptAt: now + seconds, isWanted: wanted,
                               inUse: inUse, limit: limit, now: now)
    }

    @Test func aWantedChannelIsClaimedWhileTheLimitHasRoom() {
        #expect(creation(.wanted, inUse: 1) == (.claim, 2))
        #expect(creation(.wanted, inUse: 2) == (.leave, 2))
    }

    @Test func aLapsedClaimIsTakenOverWithoutCountingAgainAndALiveOneIsLeft() {
        #expect(creation(.creating, alive: true, runsOutIn: 30, inUse: 2) == (.leave, 2))
        #expect(creation(.creating, alive: true, runsOutIn: -1, inUse: 2) == (.claim, 2))
        #expect(creation(.creating, alive: false, runsOutIn: 30, inUse: 2) == (.claim, 2))
    }

    @Test func aChannelNoOneWantsIsDroppedAndNoLongerCounts() {
        #expect(creation(.creating, wanted: false, inUse: 2) == (.drop, 1))
        #expect(creation(.wanted, wanted: false, inUse: 2) == (.drop, 2))
        #expect(FollowerRules.unwantedNote == "never made: no follower wants it any more")
    }
}
