import Foundation
import Game
import Store
import Testing
import Vocabulary

@Suite struct AdventureRulesTests {
    private let roster = [PartyMember(player: ada, hero: panda), PartyMember(player: bo, hero: egghead)]

    @Test func anAdventureStartsWithItsRosterStillInThePartyAndNoneRunning() {
        #expect(refusal {
            try AdventureRules.checkStart(roster: roster, partyName: "Owls", members: Set(roster), running: nil)
        } == nil)
        #expect(refusal {
            try AdventureRules.checkStart(roster: roster, partyName: "Owls", members: [roster[0]], running: nil)
        } == .conflict("player bo with hero 'egghead' is not in party 'Owls'"))
        #expect(refusal {
            try AdventureRules.checkStart(roster: roster, partyName: "Owls", members: Set(roster), running: "a0")
        } == .conflict("party 'Owls' already has adventure a0 running"))
    }

    @Test func onlyARunningAdventureTakesCommands() {
        #expect(refusal { try AdventureRules.checkTakesCommands("a1", status: .running) } == nil)
        #expect(refusal { try AdventureRules.checkTakesCommands("a1", status: .victory) }
            == .conflict("adventure a1 has ended (victory); it takes no commands"))
    }

    @Test func theGameMastersEndIsQueuedOnce() throws {
        let queued = QueuedCommand(id: CommandID(4), command: .endAdventure, receivedAt: Date(timeIntervalSince1970: 0))
        #expect(try AdventureRules.endRequest("a1", status: .running, queued: nil) == .queue)
        #expect(try AdventureRules.endRequest("a1", status: .running, queued: queued) == .queuedAlready(queued))
        #expect(refusal { try AdventureRules.endRequest("a1", status: .endedByGameMaster, queued: queued) }
            == .conflict("adventure a1 has already ended (endedByGameMaster)"))
    }
}

@Suite struct TickRulesTests {
    @Test func aTickIsAfterTheStartCarriesItsOwnStateAndAppliesEachCommandOnce() {
        #expect(TickRules.refusal(of: tickRecord(tick: 1, commands: [CommandID(1), CommandID(2)])) == nil)
        #expect(TickRules.refusal(of: tickRecord(tick: 0)) == .invalid("ticks count from 1, not 0"))
        #expect(TickRules.refusal(of: tickRecord(tick: 2, stateTick: 3))
            == .invalid("the state passed for tick 2 is the state of tick 3"))
        #expect(TickRules.refusal(of: tickRecord(tick: 1, commands: [CommandID(1), CommandID(1)]))
            == .invalid("a command cannot be applied twice in one tick"))
    }

    @Test func aTickFollowsTheStoredOneOfARunningAdventureNoOtherNodeHolds() {
        let record = tickRecord(tick: 5)
        #expect(TickRules.fenceRefusal(record, stored: .init(status: "running", lastTick: 4)) == nil)
        #expect(TickRules.fenceRefusal(record, stored: nil) == .notFound("adventure", id: "a1"))
        #expect(TickRules.fenceRefusal(record, stored: .init(status: "victory", lastTick: 4))
            == .conflict("adventure a1 has ended (victory); tick 5 cannot follow"))
        #expect(TickRules.fenceRefusal(record, stored: .init(status: "running", lastTick: 5))
            == .conflict("adventure a1 is at tick 5; tick 5 cannot be stored after it"))
        #expect(TickRules.fenceRefusal(record, stored: .init(status: "running", lastTick: 4, otherHolder: "node-b"))
            == .conflict("adventure a1 is held by node node-b; this node's lease on it ran out"))
        #expect(TickRules.commandNotWaiting(CommandID(9), in: "a1")
            == .conflict("command 9 is not waiting in adventure a1; it may have been applied already"))
    }
}

@Suite struct SharedRefusalTests {
    @Test func aBudgetOfAnotherAdventureAndASchemaRefusalAreWordedOnce() {
        #expect(TickRules.strangerActivity("act-9", of: "a1") == .notFound("activity of adventure a1", id: "act-9"))
        #expect(TickRules.strangerFollowersChannel("fc-9", of: "a1") == .notFound("followers' channel of adventure a1", id: "fc-9"))
        #expect(StoreError.refusedBySchema("CHECK failed", malformed: true) == .invalid("refused by the schema: CHECK failed"))
        #expect(StoreError.refusedBySchema("UNIQUE failed", malformed: false) == .conflict("refused by the schema: UNIQUE failed"))
    }
}
