import Foundation
import Game
import GRDB
import PushPolicy

/// One tick of one adventure, as the ticker computed it.
public struct TickRecord: Sendable {
    public var adventure: AdventureID
    public var tick: Int
    /// The state after the tick; `state.tick` must be `tick`.
    public var state: AdventureState
    public var events: [GameEvent]
    /// The queued commands the tick applied, in the order applied.
    public var appliedCommandIDs: [CommandID]
    public var outbox: [OutboxMessage]
    /// By activity id, as `PushPolicy.pushes(after:…ledgers:)` left them.
    public var ledgers: [String: BudgetLedger]
    /// When the tick ends the adventure: the push that tells a member listening on
    /// the party's channel to leave it. Built inside the tick's transaction, so a
    /// member who joined a moment before is not missed.
    public var leaveChannelPush: (@Sendable (ChannelMember) -> OutboxMessage?)?

    public init(adventure: AdventureID, tick: Int, state: AdventureState, events: [GameEvent],
                appliedCommandIDs: [CommandID], outbox: [OutboxMessage], ledgers: [String: BudgetLedger],
                leaveChannelPush: (@Sendable (ChannelMember) -> OutboxMessage?)? = nil) {
        self.adventure = adventure
        self.tick = tick
        self.state = state
        self.events = events
        self.appliedCommandIDs = appliedCommandIDs
        self.outbox = outbox
        self.ledgers = ledgers
        self.leaveChannelPush = leaveChannelPush
    }
}

extension RangersStore {
    /// Stores one tick, all of it or none of it: the new state and status, when the
    /// next tick is due, the tick's events, the commands it applied (now carrying
    /// the tick), the pushes it decided on, and the activities' budget ledgers.
    ///
    /// The stored `lastTick` must be `tick − 1`; otherwise this throws a conflict
    /// and changes nothing, so a tick computed twice (a slow ticker overtaken, a
    /// restart) is never stored twice.
    @discardableResult
    public func recordTick(
        adventure: AdventureID, tick: Int, state: AdventureState, events: [GameEvent], appliedCommandIDs: [CommandID],
        outbox: [OutboxMessage], ledgers: [String: BudgetLedger], at now: Date = Date()
    ) async throws -> StoredAdventure {
        let record = TickRecord(adventure: adventure, tick: tick, state: state, events: events,
                                appliedCommandIDs: appliedCommandIDs, outbox: outbox, ledgers: ledgers)
        return try await write { db in try Self.store(record, at: now, db) }
    }

    /// Many adventures' ticks in one write, so thousands of adventures ticking each
    /// second cost one commit, not thousands. Each tick is stored in its own
    /// savepoint, all of it or none of it, exactly as `recordTick` would: a refused
    /// tick leaves the others stored. Returns, in order, each stored adventure or
    /// why its tick was refused.
    public func recordTicks(_ records: [TickRecord], at now: Date = Date()) async throws -> [Result<StoredAdventure, StoreError>] {
        try await write { db in
            try records.map { record in
                var stored: StoredAdventure?
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

    private static func store(_ record: TickRecord, at now: Date, _ db: Database) throws -> StoredAdventure {
        let (adventure, tick, state) = (record.adventure, record.tick, record.state)
        guard tick >= 1 else { throw StoreError.invalid("ticks count from 1, not \(tick)") }
        guard state.tick == tick else {
            throw StoreError.invalid("the state passed for tick \(tick) is the state of tick \(state.tick)")
        }
        guard Set(record.appliedCommandIDs).count == record.appliedCommandIDs.count else {
            throw StoreError.invalid("a command cannot be applied twice in one tick")
        }
        var row = try requireAdventure(adventure, db)
        guard row.status == .running else {
            throw StoreError.conflict("adventure \(adventure) has ended (\(row.status.rawValue)); tick \(tick) cannot follow")
        }
        guard row.lastTick == tick - 1 else {
            throw StoreError.conflict("adventure \(adventure) is at tick \(row.lastTick); tick \(tick) cannot be stored after it")
        }

        row.state = state
        row.status = state.status
        row.lastTick = tick
        if state.isRunning {
            row.nextTickAt = row.startedAt + (tick + 1) * row.tickInterval
            row.endedAt = nil
        } else {
            row.nextTickAt = nil
            row.endedAt = row.startedAt + tick * row.tickInterval
        }
        try row.update(db)

        for (position, event) in record.events.enumerated() {
            try EventRow(adventure: adventure.rawValue, tick: tick, position: position, event: event).insert(db)
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
            try sendOffChannel(party: PartyID(row.party), players: nil, at: now, leaveChannelPush, db)
        }

        for (activity, ledger) in record.ledgers.sorted(by: { $0.key < $1.key }) {
            let json = String(decoding: try JSONEncoder().encode(ledger), as: UTF8.self)
            try db.execute(sql: "UPDATE liveActivity SET ledger = ? WHERE id = ? AND adventure = ?",
                           arguments: [json, activity, adventure.rawValue])
            guard db.changedRows else {
                throw StoreError.notFound("activity of adventure \(adventure)", id: activity)
            }
        }
        return try row.value()
    }

    /// Inserts one outbox row. A leave-channel push (an end to a channel member)
    /// also marks the member as leaving: their token is kept until that push is
    /// done with, then dropped.
    static func enqueue(_ message: OutboxMessage, adventure: AdventureID?, tick: Int?, at now: Date, _ db: Database) throws {
        try OutboxRow(message, adventure: adventure, tick: tick, at: now).insert(db)
        if message.isEnd, case .pushToTalk(let member) = message.target {
            try db.execute(sql: "UPDATE channelMember SET status = 'leaving', leftAt = ? WHERE id = ? AND status = 'joined'",
                           arguments: [now, member.rawValue])
        }
    }
}
