import GRDB
import PushPolicy
import Store
import Vocabulary

/// The push budgets of an adventure's activities, kept in the adventure's row
/// (v14): a line per activity that has one, its id, a tab and its budget's JSON
/// (`LedgerJSON`), in the order of the ids. An id holds no control character
/// (`StoredValueLimits.checkClientID`), so neither the tab nor the newline can be
/// part of one. A tick rewrites the adventure's row anyway; a budget in its
/// activity's row cost a page more per tick. An activity without a line has the
/// empty budget it was registered with.
struct AdventureLedgers {
    private var entries: [(activity: String, ledger: Substring)]

    /// The adventure's budgets as stored; none for an adventure not stored.
    static func stored(of adventure: AdventureID, _ db: Database) throws -> AdventureLedgers {
        AdventureLedgers(try String.fetchOne(db.cachedStatement(sql: "SELECT ledgers FROM adventure WHERE id = ?"),
                                             arguments: [adventure.rawValue]) ?? "")
    }

    init(_ text: String) {
        // By UTF-8 byte, not by Character: the separators are ASCII, and walking
        // the text's grapheme clusters cost more than the rest of reading it.
        let newline = UInt8(ascii: "\n"), tab = UInt8(ascii: "\t")
        entries = text.utf8.split(separator: newline).map { line in
            let end = line.firstIndex(of: tab) ?? line.endIndex
            return (String(Substring(line[..<end])), Substring(line[end...].dropFirst()))
        }
    }

    var text: String { entries.map { $0.activity + "\t" + $0.ledger }.joined(separator: "\n") }

    func contains(_ activity: ActivityID) -> Bool {
        entries.contains { $0.activity == activity.rawValue }
    }

    func ledger(of activity: ActivityID) throws -> BudgetLedger {
        guard let entry = entries.first(where: { $0.activity == activity.rawValue }) else { return BudgetLedger() }
        return try SQLiteStore.ledger(String(entry.ledger))
    }

    mutating func set(_ ledger: BudgetLedger, of activity: ActivityID) {
        set(stored: LedgerJSON.text(of: ledger), of: activity)
    }

    /// A budget's JSON as it was stored, kept byte for byte (`v14AdventureLedgers`).
    mutating func set(stored ledger: String, of activity: ActivityID) {
        let text = Substring(ledger)
        if let index = entries.firstIndex(where: { $0.activity == activity.rawValue }) {
            entries[index].ledger = text
        } else {
            let place = entries.firstIndex { $0.activity > activity.rawValue } ?? entries.endIndex
            entries.insert((activity.rawValue, text), at: place)
        }
    }
}
