import Game
import Store
import Testing
import Vocabulary

@Suite struct ActivityRulesTests {
    private let roster = [PartyMember(player: ada, hero: panda), PartyMember(player: bo, hero: egghead)]

    private func registration(_ player: PlayerID = ada, hero: HeroID? = panda,
                              adventure: AdventureID = "a1") -> ActivityRules.Registration {
        ActivityRules.Registration(activity: "act-1", player: player, adventure: adventure, hero: hero)
    }

    private func stored(_ player: PlayerID = ada, hero: HeroID? = panda, adventure: AdventureID = "a1",
                        status: LiveActivityStatus = .active) -> ActivityRules.Stored {
        ActivityRules.Stored(player: player, adventure: adventure, hero: hero, status: status)
    }

    @Test func aHerosActivityIsForTheRosterAndAFollowersForOneWhoFollowsPerToken() {
        #expect(refusal { try ActivityRules.checkRegistrant(registration(), roster: roster, followerDelivery: nil) } == nil)
        #expect(refusal { try ActivityRules.checkRegistrant(registration(hero: egghead), roster: roster, followerDelivery: nil) }
            == .forbidden("hero 'egghead' is not yours in adventure a1"))
        #expect(refusal { try ActivityRules.checkRegistrant(registration(cy, hero: nil), roster: roster, followerDelivery: .token) }
            == nil)
        #expect(refusal { try ActivityRules.checkRegistrant(registration(cy, hero: nil), roster: roster, followerDelivery: nil) }
            == .forbidden("an activity without a hero is a follower's; you do not follow adventure a1"))
    }

    @Test func aRepeatIsTheSamePlayersForTheSameAdventureAndHero() {
        #expect(refusal { try ActivityRules.checkRepeat(registration(), of: stored()) } == nil)
        #expect(refusal { try ActivityRules.checkRepeat(registration(), of: stored(bo)) }
            == .forbidden("activity act-1 belongs to another player"))
        #expect(refusal { try ActivityRules.checkRepeat(registration(), of: stored(adventure: "a2")) }
            == .conflict("activity act-1 is registered for another adventure or hero"))
        #expect(refusal { try ActivityRules.checkRepeat(registration(), of: stored(hero: nil)) }
            == .conflict("activity act-1 is registered for another adventure or hero"))
    }

    @Test func aNewActivityFollowsOnlyARunningAdventure() {
        #expect(refusal { try ActivityRules.checkNew(in: "a1", isRunning: true) } == nil)
        #expect(refusal { try ActivityRules.checkNew(in: "a1", isRunning: false) }
            == .conflict("adventure a1 has ended; no new activity can follow it"))
    }

    @Test func aNewTokenReplacesTheCurrentOneOfAnActiveActivityOnly() throws {
        let old = try PushToken(hex: String(repeating: "ab", count: 32))
        let new = try PushToken(hex: String(repeating: "cd", count: 32))
        #expect(try ActivityRules.installs(new, on: "act-1", status: .active, current: old))
        #expect(try ActivityRules.installs(new, on: "act-1", status: .active, current: nil))
        #expect(try !ActivityRules.installs(old, on: "act-1", status: .ended, current: old))
        #expect(refusal { try ActivityRules.installs(new, on: "act-1", status: .ended, current: old) }
            == .conflict("activity act-1 is ended; it takes no new token"))
    }

    @Test func aDeviceIsItsFirstPlayers() {
        #expect(refusal { try ActivityRules.checkDeviceOwner("phone", owner: nil, player: ada) } == nil)
        #expect(refusal { try ActivityRules.checkDeviceOwner("phone", owner: ada, player: ada) } == nil)
        #expect(refusal { try ActivityRules.checkDeviceOwner("phone", owner: bo, player: ada) }
            == .forbidden("device phone belongs to another player"))
    }

    @Test func theAppReportsAnEndOrADismissalAndDismissedIsFinal() {
        #expect(ActivityRules.statusAfter(report: .ended, stored: .active) == .ended)
        #expect(ActivityRules.statusAfter(report: .dismissed, stored: .ended) == .dismissed)
        #expect(ActivityRules.statusAfter(report: .ended, stored: .dismissed) == nil)
    }
}
