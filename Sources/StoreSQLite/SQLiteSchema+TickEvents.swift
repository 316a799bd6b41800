import GRDB
import Store

extension Schema {
    /// A tick's events in one row (`TickEventsText`) instead of a row per event.
    /// Rows go in the order they are written (the rowid), so a batch of ticks
    /// fills the same few pages; only the index by adventure takes a page per
    /// adventure. Keyed by (adventure, tick, position), the event table spread
    /// each tick over its adventure's pages: 3.2 pages, 31 % of a tick's WAL.
    /// Every stored event is carried over, in order, byte for byte.
    static func v10TickEvents(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE tickEvents (
                id INTEGER PRIMARY KEY,
                adventure TEXT NOT NULL REFERENCES adventure(id),
                tick INTEGER NOT NULL,
                events TEXT NOT NULL
            );
            CREATE UNIQUE INDEX tickEvents_byAdventure ON tickEvents(adventure, tick);
            """)
        // Grouped here rather than by group_concat, whose order SQLite does not promise.
        let insert = try db.makeStatement(sql: "INSERT INTO tickEvents (adventure, tick, events) VALUES (?, ?, ?)")
        var current: (adventure: String, tick: Int)?
        var events: [String] = []
        func flush() throws {
            guard let current, !events.isEmpty else { return }
            try insert.execute(arguments: [current.adventure, current.tick, TickEventsText.text(of: events)])
        }
        let rows = try Row.fetchCursor(db, sql: "SELECT adventure, tick, event FROM event ORDER BY adventure, tick, position")
        while let row = try rows.next() {
            let key = (adventure: row[0] as String, tick: row[1] as Int)
            if current.map({ $0.adventure != key.adventure || $0.tick != key.tick }) ?? true {
                try flush()
                current = key
                events = []
            }
            events.append(row[2])
        }
        try flush()
        try db.execute(sql: "DROP TABLE event")
    }
}
