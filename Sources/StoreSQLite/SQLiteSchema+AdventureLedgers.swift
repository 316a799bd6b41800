import GRDB

extension Schema {
    /// The activities' push budgets move into their adventure's row
    /// (`AdventureLedgers`): a tick that changed a budget wrote the activity's row
    /// too, a page of its own (0.9 of the 7 pages a tick wrote after v13). Every
    /// budget is carried over as it was written; an activity's row keeps no copy.
    static func v14AdventureLedgers(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE adventure ADD COLUMN ledgers TEXT NOT NULL DEFAULT ''")
        var byAdventure: [String: [String]] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT adventure, id, ledger FROM liveActivity ORDER BY adventure, id")
        while let row = try rows.next() {
            byAdventure[row[0], default: []].append((row[1] as String) + "\t" + (row[2] as String))
        }
        let update = try db.makeStatement(sql: "UPDATE adventure SET ledgers = ? WHERE id = ?")
        for (adventure, lines) in byAdventure { try update.execute(arguments: [lines.joined(separator: "\n"), adventure]) }
        try db.execute(sql: "ALTER TABLE liveActivity DROP COLUMN ledger")
    }
}
