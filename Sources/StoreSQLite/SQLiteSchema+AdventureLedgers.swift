import GRDB
import Vocabulary

extension Schema {
    /// The activities' push budgets move into their adventure's row
    /// (`AdventureLedgers`): a tick that changed a budget wrote the activity's row
    /// too, a page of its own (0.9 of the 7 pages a tick wrote after v13). Every
    /// budget is carried over as it was written; an activity's row keeps no copy.
    static func v14AdventureLedgers(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE adventure ADD COLUMN ledgers TEXT NOT NULL DEFAULT ''")
        var byAdventure: [String: AdventureLedgers] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT adventure, id, ledger FROM liveActivity")
        while let row = try rows.next() {
            byAdventure[row[0], default: AdventureLedgers("")].set(stored: row[2], of: ActivityID(row[1] as String))
        }
        let update = try db.makeStatement(sql: "UPDATE adventure SET ledgers = ? WHERE id = ?")
        for (adventure, ledgers) in byAdventure { try update.execute(arguments: [ledgers.text, adventure]) }
        try db.execute(sql: "ALTER TABLE liveActivity DROP COLUMN ledger")
    }
}
