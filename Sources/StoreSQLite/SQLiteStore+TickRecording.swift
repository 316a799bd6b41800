import Foundation
import Game
import GRDB
import PushPolicy
import Store
import Vocabulary

extension SQLiteStore {
    /// Many adventures' ticks in one write, so thousands of adventures ticking each
    /// second cost one commit, not thousands. Each tick is stored in its own
    /// savepoint, all of it or none of it: the new state and status, when the next
    /// tick is due, the events, the commands it applied (now carrying the tick),
    /// its pushes and the activities' budgets. The stored `lastTick` must be
    /// `tick − 1` (SQLite's one writer checks and writes without a race); a refused
    /// tick leaves the others stored. Returns, in order, where each stored tick
    /// left its adventure or why it was refused.
    public func recordTicks(_ records: [TickRecord], at now: Date) async throws -> [Result<StoredTick, StoreError>] {
        // Every push of the batch is queued at the same instant: its text is made once.
        let queuedAt = now.databaseValue
        return try await write { db in
            let (savepoint, statements) = (try ItemSavepoint(db), try TickStatements(db))
            return try records.map { record in
                var stored: StoredTick?
                let refusal = try Self.refusal {
                    try savepoint.run {
                        stored = try Self.store(record, at: now, queuedAt: queuedAt, statements, db)
                    }
                }
                if let refusal { return .failure(refusal) }
                return .success(stored!)
            }
        }
    }

    // The statements below run thousands of times a second under load: cached
    // statements with only the columns a tick changes, not records.

    /// A tick of an adventure that goes on. The fence let only a running adventure
    /// through, so its status and end are left out: SQLite rewrites the entries of
    /// every index whose columns or condition name a column the statement sets,
    /// changed or not, and the index of one running adventure per party is
    /// conditioned on the status (a page per tick, 2 % of its WAL).
    /// The budgets (`ledgers`) are left as they are when the tick changed none
    /// (NULL), and so is the newest tick row (`lastTickRow`, v16) when it wrote none.
    static let runningTickSQL = """
        UPDATE adventure SET state = ?, lastTick = ?, nextTickAt = ?, ledgers = coalesce(?, ledgers),
            lastTickRow = coalesce(?, lastTickRow)
        WHERE id = ?
        """

    /// The tick that ends an adventure.
    static let endingTickSQL = """
        UPDATE adventure SET state = ?, status = ?, lastTick = ?, nextTickAt = NULL, endedAt = ?, ledgers = coalesce(?, ledgers),
            lastTickRow = coalesce(?, lastTickRow)
        WHERE id = ?
        """

    /// The statements each tick of a batch runs, looked up in GRDB's cache once a
    /// batch: a lookup hashes the statement's whole text.
    private struct TickStatements {
        let adventureRow: Statement, tickRow: Statement, runningTick: Statement, queue: QueueStatements

        init(_ db: Database) throws {
            adventureRow = try db.cachedStatement(sql: """
                SELECT status, lastTick, startedAt, tickInterval, party, lastTickRow, ledgers FROM adventure WHERE id = ?
                """)
            tickRow = try db.cachedStatement(sql: """
                INSERT INTO tickEvents (adventure, tick, events, firstPush, lastPush, previous) VALUES (?, ?, ?, ?, ?, ?)
                """)
            runningTick = try db.cachedStatement(sql: SQLiteStore.runningTickSQL)
            queue = try QueueStatements(db)
        }
    }

    private static func store(_ record: TickRecord, at now: Date, queuedAt: DatabaseValue, _ statements: TickStatements,
                              _ db: Database) throws -> StoredTick {
        let (adventure, tick, state) = (record.adventure, record.tick, record.state)
        if let refusal = TickRules.refusal(of: record) { throw refusal }
        var row: StoredAdventureRow?
        try statements.adventureRow.forEachRow({ $0.add(adventure.rawValue) }) { stored in
            row = StoredAdventureRow(status: stored.string(0), lastTick: stored.int(1), startedAt: stored.int(2),
                                     interval: stored.int(3), party: stored.string(4), lastTickRow: stored.optionalInt64(5),
                                     ledgers: stored.optionalString(6))
        }
        if let refusal = TickRules.fenceRefusal(record, stored: row.map { TickRules.Stored(status: $0.status, lastTick: $0.lastTick) }) {
            throw refusal
        }
        guard let row else { throw StoreError.unknownAdventure(adventure) }
        let (startedAt, interval) = (row.startedAt, row.interval)

        let stored = StoredTick(lastTick: tick, status: state.status,
                                nextTickAt: state.isRunning ? startedAt + (tick + 1) * interval : nil)
        let ledgers = try Self.ledgers(after: record, stored: row.ledgers, db)

        for id in record.appliedCommandIDs {
            try db.execute(sql: "UPDATE command SET tick = ? WHERE id = ? AND adventure = ? AND tick IS NULL",
                           arguments: [tick, id.rawValue, adventure.rawValue])
            guard db.changedRows else { throw TickRules.commandNotWaiting(id, in: adventure) }
        }

        var pushes: ClosedRange<Int64>?
        for message in record.outbox {
            let id = try enqueue(message, adventure: adventure, tick: tick, at: queuedAt, inTickRange: true,
                                 statements: statements.queue, db)
            pushes = (pushes?.lowerBound ?? id)...id
        }
        let tickRow = try insertTickRow(record.eventTexts, pushes: pushes, adventure: adventure, tick: tick, after: row.lastTickRow,
                                        statements.tickRow, db)
        if state.isRunning {
            try statements.runningTick.run {
                $0.add(record.stateText); $0.add(tick); $0.add(stored.nextTickAt); $0.add(ledgers); $0.add(tickRow)
                $0.add(adventure.rawValue)
            }
        } else {
            try db.cachedStatement(sql: Self.endingTickSQL).run {
                $0.add(record.stateText); $0.add(state.status.rawValue); $0.add(tick); $0.add(startedAt + tick * interval)
                $0.add(ledgers); $0.add(tickRow); $0.add(adventure.rawValue)
            }
        }
        if !state.isRunning, let leaveChannelPush = record.leaveChannelPush {
            try sendOffChannel(party: PartyID(row.party), players: nil, at: now, leaveChannelPush, db)
        }

        if !record.channelLedgers.isEmpty {
            let updateChannel = try db.cachedStatement(sql: "UPDATE followerChannel SET ledger = ? WHERE id = ? AND adventure = ?")
            for (channel, ledger) in record.channelLedgers.sorted(by: { $0.key < $1.key }) {
                try updateChannel.execute(arguments: [LedgerJSON.text(of: ledger), channel.rawValue, adventure.rawValue])
                guard db.changedRows else { throw TickRules.strangerFollowersChannel(channel.rawValue, of: adventure) }
            }
        }
        return stored
    }

    /// The adventure's budgets (`AdventureLedgers`, as `stored` in its row) with
    /// those the tick changed; refused if one is not of an activity of the
    /// adventure. An activity with a budget stored here was found to be the
    /// adventure's when it was first stored. Nil when the tick changed none.
    private static func ledgers(after record: TickRecord, stored: String?, _ db: Database) throws -> String? {
        guard !record.ledgers.isEmpty else { return nil }
        var ledgers = AdventureLedgers(stored ?? "")
        let isOfAdventure = try db.cachedStatement(sql: "SELECT 1 FROM liveActivity WHERE id = ? AND adventure = ?")
        for (activity, ledger) in record.ledgers.sorted(by: { $0.key < $1.key }) {
            guard try ledgers.contains(activity)
                    || Bool.fetchOne(isOfAdventure, arguments: [activity.rawValue, record.adventure.rawValue]) != nil else {
                throw TickRules.strangerActivity(activity.rawValue, of: record.adventure)
            }
            ledgers.set(ledger, of: activity)
        }
        return ledgers.text
    }

    /// A tick's row: its events, in order (`TickEventsText`), the first and last
    /// of the pushes it queued, numbered one after another in this write (v15),
    /// and the adventure's tick row before it (v16). None for a tick without events or
    /// pushes (nil); no events, an empty text. Returns the row's id.
    private static func insertTickRow(_ events: [String], pushes: ClosedRange<Int64>?, adventure: AdventureID, tick: Int,
                                      after previous: Int64?, _ insert: Statement, _ db: Database) throws -> Int64? {
        guard !events.isEmpty || pushes != nil else { return nil }
        try insert.run {
            $0.add(adventure.rawValue); $0.add(tick); $0.add(TickEventsText.text(of: events)); $0.add(pushes?.lowerBound)
            $0.add(pushes?.upperBound); $0.add(previous)
        }
        return db.lastInsertedRowID
    }

    /// What a tick reads of its adventure's row before writing it.
    private struct StoredAdventureRow {
        var status: String
        var lastTick: Int
        var startedAt: Int
        var interval: Int
        var party: String
        var lastTickRow: Int64?
        var ledgers: String?
    }
}
