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
///
/// Kept as the text's bytes and read in place: a tick changes one or two lines of
/// a few hundred bytes, and splitting the text into a string per line and
/// joining it again cost more than the rest of storing the budgets.
struct AdventureLedgers {
    private var bytes: [UInt8]
    private static let newline = UInt8(ascii: "\n"), tab = UInt8(ascii: "\t")

    /// The adventure's budgets as stored; none for an adventure not stored.
    static func stored(of adventure: AdventureID, _ db: Database) throws -> AdventureLedgers {
        AdventureLedgers(try String.fetchOne(db.cachedStatement(sql: "SELECT ledgers FROM adventure WHERE id = ?"),
                                             arguments: [adventure.rawValue]) ?? "")
    }

    init(_ text: String) { bytes = Array(text.utf8) }

    var text: String { String(decoding: bytes, as: UTF8.self) }

    func contains(_ activity: ActivityID) -> Bool { line(of: activity) != nil }

    func ledger(of activity: ActivityID) throws -> BudgetLedger {
        guard let line = line(of: activity) else { return BudgetLedger() }
        return try SQLiteStore.ledger(String(decoding: bytes[line.ledger], as: UTF8.self))
    }

    mutating func set(_ ledger: BudgetLedger, of activity: ActivityID) {
        set(stored: LedgerJSON.text(of: ledger), of: activity)
    }

    /// A budget's JSON as it was stored, kept byte for byte (`v14AdventureLedgers`).
    mutating func set(stored ledger: String, of activity: ActivityID) {
        if let line = line(of: activity) {
            bytes.replaceSubrange(line.ledger, with: ledger.utf8)
            return
        }
        var added = Array(activity.rawValue.utf8)
        added.append(Self.tab)
        added.append(contentsOf: ledger.utf8)
        // A new line goes before the first whose id sorts after its own, as the
        // ids' strings sort (which is not always their bytes' order).
        var place: Int?
        forEachLine { start, id, _ in
            if String(decoding: bytes[id], as: UTF8.self) > activity.rawValue {
                place = start
                return false
            }
            return true
        }
        if let place {
            added.append(Self.newline)
            bytes.insert(contentsOf: added, at: place)
        } else {
            if !bytes.isEmpty { bytes.append(Self.newline) }
            bytes.append(contentsOf: added)
        }
    }

    /// The activity's line: where its budget's JSON is. Ids are compared by their
    /// bytes: those asked for were read from the same database.
    private func line(of activity: ActivityID) -> (id: Range<Int>, ledger: Range<Int>)? {
        var found: (id: Range<Int>, ledger: Range<Int>)?
        forEachLine { _, id, ledger in
            if bytes[id].elementsEqual(activity.rawValue.utf8) {
                found = (id, ledger)
                return false
            }
            return true
        }
        return found
    }

    /// Each line's start, id and budget, in order, while `body` says to go on.
    private func forEachLine(_ body: (_ start: Int, _ id: Range<Int>, _ ledger: Range<Int>) -> Bool) {
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: Self.newline) ?? bytes.count
            let tab = bytes[start..<end].firstIndex(of: Self.tab) ?? end
            guard body(start, start..<tab, min(tab + 1, end)..<end) else { return }
            start = end + 1
        }
    }
}
