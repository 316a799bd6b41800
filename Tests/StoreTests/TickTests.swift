import Foundation
import Game
import PushPolicy
import Store
import StoreTestSupport
import Testing
import Vocabulary

@Suite(.closesStores) struct TickTests {
    /// Everything a tick writes, read raw, to compare before and after a refused one.
    private struct Footprint: Equatable {
        var adventure: [[String?]]
        var events: [[String?]]
        var commands: [[String?]]
        var outbox: [[String?]]
        var ledgers: [[String?]]
    }

    private func footprint(_ database: TestDatabase, _ id: AdventureID) async throws -> Footprint {
        let adventure = try await database.rows(
            sqlite: "SELECT status, state, lastTick, nextTickAt, endedAt FROM adventure WHERE id = ?",
            postgres: "SELECT status, state, last_tick::text, next_tick_at::text, ended_at::text FROM adventure WHERE id = $1",
            [id.rawValue])
        return Footprint(
            adventure: adventure,
            events: try await database.rows(sqlite: "SELECT tick, events FROM tickEvents ORDER BY adventure, tick",
                                            postgres: """
                                                SELECT l.tick::text, n.id, l.events FROM tick_log l
                                                JOIN adventure a ON a.code = l.adventure_code LEFT JOIN node n ON n.code = l.node_code
                                                ORDER BY a.id, l.tick
                                                """),
            commands: try await database.rows(sqlite: "SELECT id, tick FROM command ORDER BY id",
                                              postgres: "SELECT id::text, tick::text FROM command ORDER BY id"),
            outbox: try await database.rows(sqlite: "SELECT COUNT(*) FROM outbox", postgres: "SELECT COUNT(*)::text FROM outbox"),
            ledgers: try await database.rows(sqlite: "SELECT ledgers FROM adventure ORDER BY id",
                                             postgres: "SELECT ledger FROM live_activity ORDER BY id"))
    }

    @Test(arguments: StoreEngine.available) func aTickStoresStateEventsCommandsPushesAndLedgersTogether(engine: StoreEngine) async throws {
        let database = try await engine.database()
        let store = try await database.open()
        let trio = try await Trio.make(in: store)
        let adventure = try await trio.startAdventure(startedAt: 1_000)
        #expect(adventure.nextTickAt == 1_002)
        let activities = try await trio.registerActivities(for: adventure.id)
        let potion = try await store.enqueueCommand(.usePotion(player: trio.players[1].id, hero: "spouty"), for: adventure.id)

        var ledger = BudgetLedger()
        ledger.lastPushAt = 1_002
        ledger.highPrioritySent = [1_001, 1_002]
        var unsent = BudgetLedger()
        unsent.highPrioritySent = [999]
        let stored = try await store.playNextTick(of: adventure.id, outbox: { _ in [update(activities[0], alert: true)] },
                                                  ledgers: [activities[0]: ledger, activities[1]: unsent])
        #expect(stored.lastTick == 1)
        #expect(stored.state.tick == 1)
        #expect(stored.nextTickAt == 1_004)

        let game = try trio.game()
        let expected = game.tick(game.start(), commands: [potion.command])
        #expect(try await store.adventure(adventure.id).state == expected.state)
        let logged = try await store.events(of: adventure.id)
        #expect(logged.map(\.event) == expected.events)
        #expect(logged.map(\.position) == Array(0..<expected.events.count))
        #expect(logged.allSatisfy { $0.tick == 1 })
        #expect(try await store.commands(of: adventure.id) == [ScheduledCommand(tick: 1, command: potion.command)])
        #expect(try await store.pendingCommands(for: adventure.id).isEmpty)
        #expect(try await store.outbox(of: adventure.id).map(\.tick) == [1])
        let inputs = try await store.tickInputs(of: adventure.id)
        #expect(inputs.ledgers[activities[0]] == ledger)
        #expect(inputs.ledgers[activities[1]] == unsent)
        #expect(inputs.ledgers[activities[2]] == BudgetLedger())

        // A tick that changes no budget leaves them as they were; one that changes one, only that one.
        try await store.playNextTick(of: adventure.id)
        #expect(try await store.tickInputs(of: adventure.id).ledgers == inputs.ledgers)
        try await store.playNextTick(of: adventure.id, ledgers: [activities[1]: ledger])
        let later = try await store.tickInputs(of: adventure.id).ledgers
        #expect(later[activities[0]] == ledger && later[activities[1]] == ledger && later[activities[2]] == BudgetLedger())

        // A push whose budget the tick did not write back: the budget read back,
        // by the ticker's read as by this one, has the time of its tick, and its
        // other activities' budgets are as written.
        let pushed = try await store.playNextTick(of: adventure.id, outbox: { _ in [update(activities[2])] })
        var resumed = BudgetLedger()
        resumed.lastPushAt = 1_000 + pushed.lastTick * 2
        let read = try await store.tickInputs(of: adventure.id).ledgers
        #expect(read == [activities[0]: ledger, activities[1]: ledger, activities[2]: resumed])
        let due = try #require(try await store.dueAdventures(at: Date(timeIntervalSince1970: 2_000), limit: 10, skipping: [],
                                                              holding: .nothing).first { $0.id == adventure.id })
        #expect(try #require(due.activities).ledgers(of: try #require(due.stored)) == read)
    }

    @Test(arguments: StoreEngine.available) func aTickStoredTwiceIsAConflictAndChangesNothing(engine: StoreEngine) async throws {
        let database = try await engine.database()
        let store = try await database.open()
        let trio = try await Trio.make(in: store)
        let adventure = try await trio.startAdventure()
        let activities = try await trio.registerActivities(for: adventure.id)
        let inputs = try await store.tickInputs(of: adventure.id)
        let game = try trio.game()
        let (state, events) = game.tick(inputs.adventure.state)
        try await store.recordTick(adventure: adventure.id, tick: 1, state: state, events: events, appliedCommandIDs: [],
                                   outbox: [update(activities[0])], ledgers: [:])
        let before = try await footprint(database, adventure.id)

        // The same tick again, as a second ticker that read the same inputs would.
        await #expect(throws: StoreError.conflict("adventure \(adventure.id) is at tick 1; tick 1 cannot be stored after it")) {
            try await store.recordTick(adventure: adventure.id, tick: 1, state: state, events: events, appliedCommandIDs: [],
                                       outbox: [update(activities[0])], ledgers: [:])
        }
        // A tick that skips one is refused the same way.
        var later = state
        later.tick = 3
        await #expect(throws: StoreError.self) {
            try await store.recordTick(adventure: adventure.id, tick: 3, state: later, events: events, appliedCommandIDs: [],
                                       outbox: [], ledgers: [:])
        }
        #expect(try await footprint(database, adventure.id) == before)
    }

    @Test(arguments: StoreEngine.available) func aFailureHalfwayThroughATickLeavesNoTraceOfIt(engine: StoreEngine) async throws {
        let database = try await engine.database()
        let store = try await database.open()
        let trio = try await Trio.make(in: store)
        let adventure = try await trio.startAdventure()
        let activities = try await trio.registerActivities(for: adventure.id)
        try await store.enqueueCommand(.usePotion(player: trio.players[0].id, hero: "egghead"), for: adventure.id)
        let before = try await footprint(database, adventure.id)

        let inputs = try await store.tickInputs(of: adventure.id)
        let (state, events) = try trio.game().tick(inputs.adventure.state, commands: inputs.commands.map(\.command))
        var ledger = BudgetLedger()
        ledger.lastPushAt = 1
        // The second push breaks a rule of the schema (an expiration before 1970),
        // after the state, the events, the commands and the first push were written.
        let error = await #expect(throws: StoreError.self) {
            try await store.recordTick(
                adventure: adventure.id, tick: 1, state: state, events: events, appliedCommandIDs: inputs.commands.map(\.id),
                outbox: [update(activities[0]), update(activities[1], expiration: -1)],
                ledgers: [activities[0]: ledger])
        }
        guard case .invalid? = error else { Issue.record("expected .invalid, got \(String(describing: error))"); return }
        #expect(try await footprint(database, adventure.id) == before)
        #expect(try await store.pendingCommands(for: adventure.id).count == 1)

        // The tick can then be stored properly.
        try await store.recordTick(adventure: adventure.id, tick: 1, state: state, events: events,
                                   appliedCommandIDs: inputs.commands.map(\.id), outbox: [update(activities[0])], ledgers: [:])
        #expect(try await store.adventure(adventure.id).lastTick == 1)
    }

    /// A tick carries budgets of its own adventure's activities only: one of
    /// another adventure is refused, naming it, and the tick leaves nothing behind.
    @Test(arguments: StoreEngine.available) func aBudgetOfAnotherAdventuresActivityIsRefusedAndNothingIsStored(engine: StoreEngine) async throws {
        let database = try await engine.database()
        let store = try await database.open()
        let trio = try await Trio.make(in: store), other = try await Trio.make(in: store)
        let adventure = try await trio.startAdventure()
        let activities = try await trio.registerActivities(for: adventure.id)
        let otherAdventure = try await other.startAdventure(seed: 9)
        let stranger = try await other.registerActivities(for: otherAdventure.id)[0]
        let before = try await footprint(database, adventure.id)

        let inputs = try await store.tickInputs(of: adventure.id)
        let (state, events) = try trio.game().tick(inputs.adventure.state, commands: [])
        var ledger = BudgetLedger()
        ledger.lastPushAt = 1
        let error = await #expect(throws: StoreError.self) {
            try await store.recordTick(adventure: adventure.id, tick: 1, state: state, events: events, appliedCommandIDs: [],
                                       outbox: [update(activities[0])], ledgers: [activities[0]: ledger, stranger: ledger])
        }
        #expect(error == TickRules.strangerActivity(stranger.rawValue, of: adventure.id))
        #expect(try await footprint(database, adventure.id) == before)
        #expect(try await store.liveActivity(stranger).ledger == BudgetLedger())
    }

    @Test(arguments: StoreEngine.available) func aCommandIsAppliedOnceAndOnlyToItsAdventure(engine: StoreEngine) async throws {
        let database = try await engine.database()
        let store = try await database.open()
        let trio = try await Trio.make(in: store)
        let adventure = try await trio.startAdventure()
        let command = try await store.enqueueCommand(.endAdventure, for: adventure.id)
        try await store.playNextTick(of: adventure.id)
        let stored = try await store.adventure(adventure.id)
        #expect(stored.status == .endedByGameMaster)
        #expect(stored.nextTickAt == nil)
        #expect(stored.endedAt == 1_002)
        #expect(try await store.runningAdventures().isEmpty)

        // A later tick naming the applied command is refused: the adventure is over.
        await #expect(throws: StoreError.self) {
            try await store.recordTick(adventure: adventure.id, tick: 2, state: stored.state, events: [],
                                       appliedCommandIDs: [command.id], outbox: [], ledgers: [:])
        }
        await #expect(throws: StoreError.self) { try await store.enqueueCommand(.endAdventure, for: adventure.id) }
        await #expect(throws: StoreError.self) { try await store.endAdventureRequested(adventure.id) }

        // The next adventure cannot claim that command either.
        let next = try await trio.startAdventure(seed: 9)
        let state = try trio.game(seed: 9).tick(next.state).state
        await #expect(throws: StoreError.conflict(
            "command \(command.id) is not waiting in adventure \(next.id); it may have been applied already")) {
            try await store.recordTick(adventure: next.id, tick: 1, state: state, events: [],
                                       appliedCommandIDs: [command.id], outbox: [], ledgers: [:])
        }
        #expect(try await store.adventure(next.id).lastTick == 0)
    }

    @Test(arguments: StoreEngine.available) func aGameMastersEndIsQueuedOnce(engine: StoreEngine) async throws {
        let database = try await engine.database()
        let store = try await database.open()
        let trio = try await Trio.make(in: store)
        let adventure = try await trio.startAdventure()
        let first = try await store.endAdventureRequested(adventure.id)
        let second = try await store.endAdventureRequested(adventure.id)
        #expect(first == second)
        #expect(try await store.pendingCommands(for: adventure.id) == [first])
    }

    @Test(arguments: StoreEngine.available) func theStoredSetupAndCommandsReplayToTheStoredEventLog(engine: StoreEngine) async throws {
        let database = try await engine.database()
        let store = try await database.open()
        let trio = try await Trio.make(in: store)
        let adventure = try await trio.startAdventure(seed: .max)
        #expect(try await store.adventure(adventure.id).setup.seed == .max)
        while try await store.adventure(adventure.id).status == .running {
            let tick = try await store.adventure(adventure.id).lastTick
            if tick == 3 || tick == 20 {
                try await store.enqueueCommand(.usePotion(player: trio.players[2].id, hero: "power-panda"), for: adventure.id)
            }
            if tick == 40 { try await store.endAdventureRequested(adventure.id) }
            try await store.playNextTick(of: adventure.id)
        }

        // A replay knows only what the store kept.
        let stored = try await store.adventure(adventure.id)
        let game = try Adventure(setup: stored.setup, content: ShippedContent.game)
        let commands = try await store.commands(of: adventure.id)
        #expect(commands.map(\.tick) == [4, 21, 41])
        var state = game.start()
        var replayed: [LoggedEvent] = []
        while state.isRunning {
            let (next, events) = game.tick(state, commands: commands.filter { $0.tick == state.tick + 1 }.map(\.command))
            replayed += events.enumerated().map { LoggedEvent(tick: next.tick, position: $0, event: $1) }
            state = next
        }
        #expect(try await store.events(of: adventure.id) == replayed)
        #expect(state == stored.state)
    }

    @Test(arguments: StoreEngine.available) func dueAdventuresAreTheRunningOnesWhoseTickHasCome(engine: StoreEngine) async throws {
        let database = try await engine.database()
        let store = try await database.open()
        let trio = try await Trio.make(in: store)
        let adventure = try await trio.startAdventure(startedAt: 1_000)
        #expect(try await store.dueAdventures(by: 1_001).isEmpty)
        #expect(try await store.dueAdventures(by: 1_002).map(\.id) == [adventure.id])
        try await store.playNextTick(of: adventure.id)
        #expect(try await store.dueAdventures(by: 1_003).isEmpty)
        #expect(try await store.dueAdventures(by: 1_004).map(\.id) == [adventure.id])
        #expect(try await store.dueAdventures(by: 1_004, skipping: [adventure.id]).isEmpty)
    }

    /// A tick falls due its adventure's phase into its second: within the second,
    /// only the adventures whose phase has come are due, earliest phase first, and
    /// the next due instant is known to the millisecond.
    @Test(arguments: StoreEngine.available) func aTickFallsDueItsPhaseIntoItsSecond(engine: StoreEngine) async throws {
        let database = try await engine.database()
        let store = try await database.open()
        let ids = (0..<100).map { AdventureID("phase-\($0)") }
        let early = try #require(ids.first { (100..<400).contains(TickSchedule.phase(of: $0)) })
        let late = try #require(ids.first { (600..<900).contains(TickSchedule.phase(of: $0)) })
        for id in [late, early] {
            let trio = try await Trio.make(in: store)
            let game = try trio.game(seed: 7)
            let stored = try await store.startAdventure(id: id, party: trio.party.id, setup: game.setup, state: game.start(),
                                                        startedAt: 1_000, contentVersion: "content-test", outbox: [])
            #expect(stored.tickPhase == TickSchedule.phase(of: id))
        }
        let (earlyPhase, latePhase) = (TickSchedule.phase(of: early), TickSchedule.phase(of: late))
        func due(_ phase: Int) async throws -> [AdventureID] {
            try await store.dueAdventures(at: TickSchedule.dueInstant(second: 1_002, phase: phase), limit: 10, skipping: [],
                                          holding: .nothing).map(\.id)
        }
        #expect(try await due(0) == [])
        #expect(try await due(earlyPhase - 1) == [])
        #expect(try await due(earlyPhase) == [early])
        #expect(try await due(latePhase - 1) == [early])
        #expect(try await due(latePhase) == [early, late])
        #expect(try await store.nextTickDue() == TickSchedule.dueInstant(second: 1_002, phase: earlyPhase))
        // A second late, both are due whatever the phase, the most overdue first.
        #expect(try await store.dueAdventures(at: TickSchedule.dueInstant(second: 1_003, phase: 0), limit: 10, skipping: [],
                                              holding: .nothing).map(\.id) == [early, late])
    }

    /// The ticker's read: the stored adventure, its activities and budgets only
    /// where the ticker says it does not hold them; commands always.
    @Test(arguments: StoreEngine.available) func aDueAdventureIsReadInFullOnlyWhenTheReaderDoesNotHoldIt(engine: StoreEngine) async throws {
        let database = try await engine.database()
        let store = try await database.open()
        let trio = try await Trio.make(in: store)
        let adventure = try await trio.startAdventure(startedAt: 1_000)
        let activities = try await trio.registerActivities(for: adventure.id)
        let potion = try await store.enqueueCommand(.usePotion(player: trio.players[1].id, hero: "spouty"), for: adventure.id)

        let unknown = try #require(try await store.dueAdventures(by: 1_002).first)
        #expect(unknown.lastTick == 0)
        #expect(unknown.stored == (try await store.adventure(adventure.id)))
        #expect(unknown.commands == [potion])
        #expect(unknown.activities?.members.map(\.recipient.activityID) == activities)
        #expect(unknown.activities?.members.allSatisfy { $0.ledger == BudgetLedger() } == true)

        let first = activities[0], changes = unknown.activityChanges
        let known = try #require(try await store.dueAdventures(
            at: endOfSecond(1_002), limit: 10, skipping: [],
            holding: HeldByReader(adventure: { $0 == adventure.id && $1 == 0 }, activities: { _, _ in false },
                                  ledger: { $1 == first })).first)
        #expect(known.stored == nil)
        #expect(known.activities?.members.map { $0.ledger == nil } == [true, false, false])

        let held = try #require(try await store.dueAdventures(
            at: endOfSecond(1_002), limit: 10, skipping: [],
            holding: HeldByReader(adventure: { _, tick in tick == 0 }, activities: { $0 == adventure.id && $1 == changes },
                                  ledger: { _, _ in true })).first)
        #expect(held.stored == nil)
        #expect(held.commands == [potion])
        #expect(held.activities == nil)

        // Held at another tick than the stored one: read in full, activities and
        // budgets included, whatever the reader says it holds of them.
        let stale = try #require(try await store.dueAdventures(
            at: endOfSecond(1_002), limit: 10, skipping: [],
            holding: HeldByReader(adventure: { _, tick in tick == 5 }, activities: { _, _ in true }, ledger: { _, _ in true })).first)
        #expect(stale.stored != nil)
        #expect(stale.activities?.members.count == 3)
        #expect(stale.activities?.members.allSatisfy { $0.ledger != nil } == true)
    }

    /// Every way an adventure's reachable activities change counts as a change,
    /// whichever statement makes it, and a tick's budgets do not: a reader that
    /// holds the activities as of the count it last read reads them again exactly
    /// when they changed.
    @Test(arguments: StoreEngine.available) func everyChangeToTheReachableActivitiesIsCounted(engine: StoreEngine) async throws {
        let (store, trio, adventure, activities) = try await engine.runningAdventure()
        func read() async throws -> DueAdventure {
            try #require(try await store.dueAdventures(by: 4_000).first { $0.id == adventure.id })
        }
        /// The count after `change`, which must have grown, and the activities then read.
        func changed(by change: () async throws -> Void) async throws -> [ActivityID] {
            let before = try await read().activityChanges
            try await change()
            let after = try await read()
            #expect(after.activityChanges > before)
            return after.activities?.members.map(\.recipient.activityID) ?? []
        }
        let otherParty = try await Trio.make(in: store)
        let other = try await otherParty.startAdventure()

        #expect(try await changed { try await store.rotateToken(activityID: activities[0], newToken: Tokens.make(77),
                                                                 by: trio.players[0].id) } == activities)
        try await store.playNextTick(of: adventure.id, outbox: { _ in activities.map { update($0, tick: 1, alert: true) } },
                                     ledgers: [activities[1]: spent(at: 1_000)])
        let claimed = try await store.claimOutbox(limit: 3)
        let toSecond = try #require(claimed.first { $0.message.target == .liveActivity(activities[1]) })
        #expect(try await changed { try await store.recordTokenInvalid(toSecond, status: 410, reason: "Unregistered", since: nil) }
            == [activities[0], activities[2]])
        #expect(try await changed { try await store.markActivity(activities[2], .ended, by: trio.players[2].id) } == [activities[0]])
        #expect(try await changed {
            try await store.registerLiveActivity(activityID: ActivityID("late-\(adventure.id.rawValue.prefix(8))"),
                                                 player: trio.players[1].id, adventure: adventure.id, hero: trio.roster[1].hero,
                                                 token: Tokens.make(78), frequentUpdates: false, locale: "en")
        }.count == 2)

        // A tick, its budgets written, and another adventure's activities: no change here.
        let before = try await read().activityChanges
        try await store.playNextTick(of: adventure.id, ledgers: [activities[0]: spent(at: 1_001)])
        try await otherParty.registerActivities(for: other.id)
        #expect(try await read().activityChanges == before)
    }
}

private func endOfSecond(_ second: Int) -> Date { TickSchedule.dueInstant(second: second, phase: 999) }

private func spent(at second: Int) -> BudgetLedger {
    var ledger = BudgetLedger()
    ledger.highPrioritySent = [second]
    ledger.lastPushAt = second
    return ledger
}

@Suite struct TickScheduleTests {
    /// Every node and every run must draw the same phase for an adventure.
    @Test func thePhaseIsTheSameForTheSameIdEverywhere() {
        #expect(TickSchedule.phase(of: "3f6c0e1a-5b7d-4c2e-9a8f-0d1e2f3a4b5c") == TickSchedule.phase(of: "3f6c0e1a-5b7d-4c2e-9a8f-0d1e2f3a4b5c"))
        // FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c.
        #expect(TickSchedule.phase(of: "a") == Int(UInt64(0xaf63_dc4c_8601_ec8c) % 1000))
    }

    /// Adventures started together fall due spread over the second: each tenth of
    /// it gets about a tenth of them.
    @Test func phasesSpreadOverTheSecond() {
        var tenths = [Int](repeating: 0, count: 10)
        for _ in 0..<10_000 { tenths[TickSchedule.phase(of: AdventureID.random()) / 100] += 1 }
        #expect(tenths.allSatisfy { (800...1_200).contains($0) }, "\(tenths)")
    }

    @Test func anInstantSplitsIntoItsSecondAndMilliseconds() {
        #expect(TickSchedule.secondAndPhase(of: Date(timeIntervalSince1970: 1_000.4564)) == (1_000, 456))
        #expect(TickSchedule.secondAndPhase(of: TickSchedule.dueInstant(second: 1_001, phase: 999)) == (1_001, 999))
        #expect(TickSchedule.secondAndPhase(of: TickSchedule.dueInstant(second: 1_001, phase: 0)) == (1_001, 0))
    }
}
