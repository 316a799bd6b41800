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
        try await write { db in
            try records.map { record in
                var stored: StoredTick?
                let refusal = try Self.refusal {
                    try db.inSavepoint {
                        stored = try Self.store(record, at: now, db)
                        return .commit
                    }
                }
                if let refusal { return .failure(refusal) }
                return .success(stored!)
            }
        }
    }

    // The statements below run thousands of times a second under load: cached
    // statements with only the columns a tick changes, not records.
    private static func store(_ record: TickRecord, at now: Date, _ db: Database) throws -> StoredTick {
        let (adventure, tick, state) = (record.adventure, record.tick, record.state)
        guard tick >= 1 else { throw StoreError.invalid("ticks count from 1, not \(tick)") }
        guard state.tick == tick else {
            throw StoreError.invalid("the state passed for tick \(tick) is the state of tick \(state.tick)")
        }
        guard Set(record.appliedCommandIDs).count == record.appliedCommandIDs.count else {
            throw StoreError.invalid("a command cannot be applied twice in one tick")
        }
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT status, lastTick, startedAt, tickInterval, party FROM adventure WHERE id = ?
            """), arguments: [adventure.rawValue]) else {
            throw StoreError.notFound("adventure", id: adventure.rawValue)
        }
        let status: String = row[0], lastTick: Int = row[1], startedAt: Int = row[2], interval: Int = row[3]
        guard status == AdventureStatus.running.rawValue else {
            throw StoreError.conflict("adventure \(adventure) has ended (\(status)); tick \(tick) cannot follow")
        }
        guard lastTick == tick - 1 else {
            throw StoreError.conflict("adventure \(adventure) is at tick \(lastTick); tick \(tick) cannot be stored after it")
        }

        let stored = StoredTick(lastTick: tick, status: state.status,
                                nextTickAt: state.isRunning ? startedAt + (tick + 1) * interval : nil)
        try db.cachedStatement(sql: """
            UPDATE adventure SET state = ?, status = ?, lastTick = ?, nextTickAt = ?, endedAt = ? WHERE id = ?
            """).execute(arguments: [record.stateText, state.status.rawValue, tick, stored.nextTickAt,
                                     state.isRunning ? nil : startedAt + tick * interval, adventure.rawValue])

        let insertEvent = try db.cachedStatement(sql: "INSERT INTO event (adventure, tick, position, event) VALUES (?, ?, ?, ?)")
        for (position, event) in record.eventTexts.enumerated() {
            try insertEvent.execute(arguments: [adventure.rawValue, tick, position, event])
        }

        for id in record.appliedCommandIDs {
            try db.execute(sql: "UPDATE command SET tick = ? WHERE id = ? AND adventure = ? AND tick IS NULL",
                           arguments: [tick, id.rawValue, adventure.rawValue])
            guard db.changedRows else {
                throw StoreError.conflict("command \(id) is not waiting in adventure \(adventure); it may have been applied already")
            }
        }

        for message in record.outbox {
            try enqueue(message, adventure: adventure, tick: tick, at: now, db)
        }
        if !state.isRunning, let leaveChannelPush = record.leaveChannelPush {
            try sendOffChannel(party: PartyID(row[4]), players: nil, at: now, leaveChannelPush, db)
        }

        let updateLedger = try db.cachedStatement(sql: "UPDATE liveActivity SET ledger = ? WHERE id = ? AND adventure = ?")
        for (activity, ledger) in record.ledgers.sorted(by: { $0.key < $1.key }) {
            try updateLedger.execute(arguments: [LedgerJSON.text(of: ledger), activity.rawValue, adventure.rawValue])
            guard db.changedRows else {
                throw StoreError.notFound("activity of adventure \(adventure)", id: activity.rawValue)
            }
        }
        return stored
    }

    /// Inserts one outbox row; it supersedes the pushes still waiting for its target
    /// that the policy marked supersedable. A leave-channel push (an end to a channel member)
    /// also marks the member as leaving: their token is kept until that push is
    /// done with, then dropped.
    static func enqueue(_ message: OutboxMessage, adventure: AdventureID?, tick: Int?, at now: Date, _ db: Database) throws {
        try db.cachedStatement(sql: supersedeSQL).execute(arguments: [
            QueuedPushRules.supersededReason, message.target.kind.rawValue, message.target.id,
        ])
        try db.cachedStatement(sql: """
            INSERT INTO outbox (adventure, targetKind, targetID, pushType, topic, priority, expiration, payload, reason,
                                hasAlert, isEnd, supersedable, tick, state, attempts, nextAttemptAt, createdAt)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)
            """).execute(arguments: [
                adventure?.rawValue, message.target.kind.rawValue, message.target.id, message.pushType.rawValue, message.topic.rawValue,
                message.priority.rawValue, message.expiration, message.payload, message.reason, message.hasAlert,
                message.isEnd, message.supersedable, tick, now, now,
            ])
        if message.isEnd, case .pushToTalk(let member) = message.target {
            try db.execute(sql: "UPDATE channelMember SET status = 'leaving', leftAt = ? WHERE id = ? AND status = 'joined'",
                           arguments: [now, member.rawValue])
        }
    }
}

