import PushPolicy
import Store
@testable import StoreSQLite
import Testing
import Vocabulary

/// The budgets kept in an adventure's row come back as they were written: a line
/// per activity, its id, a tab and its budget's JSON byte for byte.
@Suite struct AdventureLedgersTests {
    @Test func eachBudgetReadsBackAndTheTextIsWrittenAsItWasRead() throws {
        var busy = BudgetLedger()
        busy.highPrioritySent = [1_795_000_000, 1_795_000_030]
        busy.lastPushAt = 1_795_000_030
        let text = ["a-1\t" + LedgerJSON.text(of: BudgetLedger()), "b-2\t" + LedgerJSON.text(of: busy)].joined(separator: "\n")
        var ledgers = AdventureLedgers(text)
        #expect(ledgers.text == text)
        #expect(try ledgers.ledger(of: ActivityID("b-2")) == busy)
        #expect(try ledgers.ledger(of: ActivityID("a-1")) == BudgetLedger())
        #expect(ledgers.contains(ActivityID("a-1")) && !ledgers.contains(ActivityID("a")))
        // An activity without a line has the empty budget; a new line goes in the order of the ids.
        #expect(try ledgers.ledger(of: ActivityID("c-3")) == BudgetLedger())
        ledgers.set(busy, of: ActivityID("a-2"))
        #expect(ledgers.text == ["a-1\t" + LedgerJSON.text(of: BudgetLedger()), "a-2\t" + LedgerJSON.text(of: busy),
                                 "b-2\t" + LedgerJSON.text(of: busy)].joined(separator: "\n"))
        #expect(AdventureLedgers("").text == "")
    }

    /// A changed budget replaces its line's JSON and nothing else; a new one goes
    /// in the order of the ids, first, between or last.
    @Test func aChangeRewritesOnlyItsLineAndANewLineGoesInOrder() throws {
        var busy = BudgetLedger()
        busy.lastPushAt = 1_795_000_030
        let empty = LedgerJSON.text(of: BudgetLedger()), changed = LedgerJSON.text(of: busy)
        var ledgers = AdventureLedgers(["b-1\t" + empty, "d-1\t" + empty].joined(separator: "\n"))
        ledgers.set(busy, of: ActivityID("d-1"))
        #expect(ledgers.text == ["b-1\t" + empty, "d-1\t" + changed].joined(separator: "\n"))
        ledgers.set(busy, of: ActivityID("b-1"))
        ledgers.set(stored: empty, of: ActivityID("e-1"))
        ledgers.set(stored: empty, of: ActivityID("c-1"))
        ledgers.set(stored: empty, of: ActivityID("a-1"))
        #expect(ledgers.text == ["a-1\t" + empty, "b-1\t" + changed, "c-1\t" + empty, "d-1\t" + changed, "e-1\t" + empty]
            .joined(separator: "\n"))
        #expect(try ledgers.ledger(of: ActivityID("d-1")) == busy && ledgers.ledger(of: ActivityID("c-1")) == BudgetLedger())
        var fromNothing = AdventureLedgers("")
        fromNothing.set(stored: empty, of: ActivityID("z"))
        #expect(fromNothing.text == "z\t" + empty)
    }
}
