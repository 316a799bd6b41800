import Game
import PushPolicy
import Testing
import Vocabulary

/// What a tick writes back of the budgets, and how a budget read back is resumed.
@Suite struct WrittenBackBudgetsTests {
    /// Played to the end as a store would keep it (each tick's written budgets,
    /// and the tick of each activity's newest push), every budget read back and
    /// resumed is the one the policy holds, tick after tick; and routine pushes,
    /// which change only the time of the last push, are not written back.
    @Test(arguments: [false, true]) func aBudgetReadBackAndResumedIsTheOneThePolicyHolds(frequentUpdates: Bool) throws {
        let adventure = try PolicyFixtures.adventure(tickInterval: 2)
        let pipeline = PolicyFixtures.pipeline(adventure)
        let recipients = PolicyFixtures.recipients(PolicyFixtures.trio, frequentUpdates: frequentUpdates)
        var stored: [ActivityID: BudgetLedger] = [:]
        var newestPushTick: [ActivityID: Int] = [:]
        var (pushes, written, ticks) = (0, 0, 0)
        try pipeline.play(commands: [], recipients: recipients) { outcome in
            ticks += 1
            stored.merge(outcome.spentLedgers) { _, new in new }
            written += outcome.spentLedgers.count
            for decision in outcome.decisions {
                guard case .liveActivity(let id) = decision.target else { continue }
                newestPushTick[id] = outcome.state.tick
                pushes += 1
            }
            for recipient in recipients {
                let id = recipient.activityID
                let lastPushAt = newestPushTick[id].map(pipeline.policy.time(ofTick:))
                #expect((stored[id] ?? BudgetLedger()).resumed(lastPushAt: lastPushAt) == outcome.ledgers[id] ?? BudgetLedger(),
                        "\(id) after tick \(outcome.state.tick)")
            }
        }
        #expect(ticks > 20)
        #expect(pushes > 2 * written, "\(pushes) pushes, \(written) budgets written back")
        #expect(written > 0)
    }

    /// Resuming moves the time of the last push forward only: a budget written
    /// back after the newest push it is given keeps its own.
    @Test func resumingNeverMovesTheLastPushBack() {
        var ledger = BudgetLedger()
        ledger.highPrioritySent = [1_000]
        ledger.lastPushAt = 1_010
        #expect(ledger.resumed(lastPushAt: 1_020).lastPushAt == 1_020)
        #expect(ledger.resumed(lastPushAt: 1_020).highPrioritySent == [1_000])
        #expect(ledger.resumed(lastPushAt: 1_000) == ledger)
        #expect(ledger.resumed(lastPushAt: nil) == ledger)
        #expect(BudgetLedger().resumed(lastPushAt: 7).lastPushAt == 7)
    }
}
