import Foundation
import Game
import PostgresNIO
import PushPolicy
import Store
import Vocabulary

extension PostgresStore {
    /// Many adventures' ticks in one transaction and a fixed number of statements,
    /// however many ticks, events and pushes it holds: each step is one statement
    /// over arrays (`UNNEST`). A tick refused by a check leaves the others stored.
    ///
    /// A tick is stored once by a fenced update: the adventure's row changes only
    /// `WHERE last_tick = tick − 1 AND status = 'running'` and no other node holds
    /// a lease on it that has not run out. Of two transactions storing the same
    /// tick at once, the second waits for the first's row lock, re-reads the row
    /// under READ COMMITTED, finds `last_tick` moved, and changes nothing: its
    /// tick is refused. A node that stalled past its lease finds the adventure
    /// held by another. Storing a tick renews this node's lease on it, and each
    /// stored tick is logged once (`tick_log`'s key) with the node that stored it.
    public func recordTicks(_ records: [TickRecord], at now: Date) async throws -> [Result<StoredTick, StoreError>] {
        var results = [Result<StoredTick, StoreError>?](repeating: nil, count: records.count)
        for (index, record) in records.enumerated() {
            if let refusal = TickRules.refusal(of: record) { results[index] = .failure(refusal) }
        }
        // One round per tick of the same adventure in the batch (usually one round):
        // a fenced update changes each row once per statement.
        var rounds: [[Int]] = []
        var roundOf: [AdventureID: Int] = [:]
        for index in records.indices where results[index] == nil {
            let round = roundOf[records[index].adventure, default: -1] + 1
            roundOf[records[index].adventure] = round
            if round == rounds.count { rounds.append([]) }
            rounds[round].append(index)
        }
        guard !rounds.isEmpty else { return results.map { $0! } }
        do {
            let stored = try await transaction { [self, rounds] connection in
                var stored: [(Int, Result<StoredTick, StoreError>)] = []
                for round in rounds {
                    // In adventure order, so that two batches lock shared rows in one order.
                    let indices = round.sorted { records[$0].adventure < records[$1].adventure }
                    stored += try await store(indices.map { ($0, records[$0]) }, at: now, connection)
                }
                return stored
            }
            for (index, result) in stored { results[index] = result }
        } catch is StoreError {
            // The schema refused a row of one tick, which undid the whole batch: store
            // each tick alone, so that only the one at fault is refused.
            for index in rounds.joined().sorted() {
                do {
                    results[index] = try await transaction { [self] connection in
                        try await store([(index, records[index])], at: now, connection)[0].1
                    }
                } catch let refusal as StoreError {
                    results[index] = .failure(refusal)
                }
            }
        }
        return results.map { $0! }
    }

    private func store(_ batch: [(index: Int, record: TickRecord)], at now: Date,
                       _ connection: PostgresConnection) async throws -> [(Int, Result<StoredTick, StoreError>)] {
        var refused: [Int: StoreError] = [:]

        // The commands each tick applied must still be waiting, in its adventure.
        // FOR UPDATE: no other transaction applies them meanwhile.
        let commandIDs = batch.flatMap { $0.record.appliedCommandIDs.map(\.rawValue) }
        if !commandIDs.isEmpty {
            let waiting = Dictionary(uniqueKeysWithValues: try await connection.query("""
                SELECT id, adventure FROM command WHERE id = ANY(\(commandIDs)) AND tick IS NULL FOR UPDATE
                """, logger: logger).decodeAll((Int64, String).self))
            for (index, record) in batch {
                if let missing = record.appliedCommandIDs.first(where: { waiting[$0.rawValue] != record.adventure.rawValue }) {
                    refused[index] = TickRules.commandNotWaiting(missing, in: record.adventure)
                }
            }
        }
        // The fence (see `recordTicks`).
        let candidates = batch.filter { refused[$0.index] == nil }
        var stored: [String: (code: Int64, party: String, nextTickAt: Int?)] = [:]
        if !candidates.isEmpty {
            let records = candidates.map(\.record)
            for (id, code, party, nextTickAt) in try await connection.query("""
                UPDATE adventure SET state = t.state, status = t.status, last_tick = t.tick,
                    next_tick_at = CASE WHEN t.status = 'running' THEN adventure.started_at + (t.tick + 1) * adventure.tick_interval END,
                    ended_at = CASE WHEN t.status = 'running' THEN NULL ELSE adventure.started_at + t.tick * adventure.tick_interval END,
                    lease_holder = CASE WHEN t.status = 'running' THEN \(node) END,
                    lease_until = CASE WHEN t.status = 'running'
                        THEN now() + make_interval(secs => greatest(\(leaseSeconds), 2 * adventure.tick_interval)) END
                FROM UNNEST(\(records.map(\.adventure.rawValue))::text[], \(records.map(\.tick))::int8[],
                            \(records.map { ByteBuffer(bytes: StoredGameText.stored($0.stateText)) })::bytea[],
                            \(records.map(\.state.status.rawValue))::text[])
                     AS t(id, tick, state, status)
                WHERE adventure.id = t.id AND adventure.last_tick = t.tick - 1 AND adventure.status = 'running'
                  AND (adventure.lease_holder IS NULL OR adventure.lease_holder = \(node) OR adventure.lease_until <= now())
                RETURNING adventure.id, adventure.code, adventure.party, adventure.next_tick_at
                """, logger: logger).decodeAll((String, Int64, String, Int?).self) {
                stored[id] = (code, party, nextTickAt)
            }
            let fenced = candidates.filter { stored[$0.record.adventure.rawValue] == nil }
            for (index, reason) in try await whyNotStored(fenced.map { ($0.index, $0.record) }, connection) {
                refused[index] = reason
            }
        }
        let accepted = candidates.map(\.record).compactMap { record in
            stored[record.adventure.rawValue].map { (record: record, code: $0.code) }
        }

        if !accepted.isEmpty {
            try await storeContents(of: accepted, at: now, connection)
            for (record, _) in accepted where !record.state.isRunning {
                if let leaveChannelPush = record.leaveChannelPush, let party = stored[record.adventure.rawValue]?.party {
                    try await sendOffChannel(party: PartyID(party), players: nil, at: now, leaveChannelPush, connection)
                }
            }
        }
        return batch.map { index, record in
            if let refusal = refused[index] { return (index, .failure(refusal)) }
            return (index, .success(StoredTick(lastTick: record.tick, status: record.state.status,
                                               nextTickAt: stored[record.adventure.rawValue]?.nextTickAt)))
        }
    }

    /// Events, applied commands, pushes and budgets of ticks the fence let through,
    /// each with its adventure's code (v25): one statement each.
    private func storeContents(of accepted: [(record: TickRecord, code: Int64)], at now: Date,
                               _ connection: PostgresConnection) async throws {
        let records = accepted.map(\.record)
        let pushes = try await enqueue(accepted.flatMap { record, code in
            record.outbox.map { QueuedMessage(message: $0, adventure: record.adventure, adventureCode: code, tick: record.tick) }
        }, inTickLog: true, at: now, connection)
        // One row per tick: the node that stored it (its code, v25), its events if it has any
        // (`TickEventsText`, stored as `StoredGameText`; no events is no bytes,
        // stored as NULL), and the pushes it queued (v18), positions `first` to
        // `last` of `pushes`.
        let lasts = records.reduce(into: [Int]()) { $0.append(($0.last ?? 0) + $1.outbox.count) }
        try await connection.query("""
            INSERT INTO tick_log (adventure_code, tick, node_code, events, pushes)
            SELECT code, tick, (SELECT code FROM node WHERE id = \(node)), NULLIF(events, ''::bytea),
                   CASE WHEN last >= first THEN (\(pushes)::int8[])[first:last] END
            FROM UNNEST(\(accepted.map(\.code))::int8[], \(records.map(\.tick))::int8[],
                        \(records.map { ByteBuffer(bytes: StoredGameText.stored(TickEventsText.text(of: $0.eventTexts))) })::bytea[],
                        \(zip(records, lasts).map { $1 - $0.outbox.count + 1 })::int4[], \(lasts)::int4[])
                 AS t(code, tick, events, first, last)
            """, logger: logger)
        let applied = records.flatMap { record in record.appliedCommandIDs.map { ($0.rawValue, record.tick) } }
        if !applied.isEmpty {
            try await connection.query("""
                UPDATE command SET tick = t.tick FROM UNNEST(\(applied.map(\.0))::int8[], \(applied.map(\.1))::int8[]) AS t(id, tick)
                WHERE command.id = t.id
                """, logger: logger)
        }
        // Each budget must belong to an activity (or followers' channel) of the
        // tick's adventure: one that does not is not updated, and refuses its tick.
        let ledgers = records.flatMap { record in
            record.ledgers.sorted { $0.key < $1.key }.map { (record.adventure, $0.key.rawValue, LedgerJSON.text(of: $0.value)) }
        }
        if !ledgers.isEmpty {
            let updated = try await connection.query("""
                UPDATE live_activity SET ledger = t.ledger
                FROM UNNEST(\(ledgers.map(\.0.rawValue))::text[], \(ledgers.map(\.1))::text[], \(ledgers.map(\.2))::text[])
                     AS t(adventure, id, ledger)
                WHERE live_activity.id = t.id AND live_activity.adventure = t.adventure
                RETURNING live_activity.adventure, live_activity.id
                """, logger: logger).decodeAll((String, String).self)
            try Self.refuseStrangers(ledgers, updated: updated, TickRules.strangerActivity)
        }
        // Only where followers' channels are open: a batch without any keeps its statements.
        let channelLedgers = records.flatMap { record in
            record.channelLedgers.sorted { $0.key < $1.key }.map {
                (record.adventure, $0.key.rawValue, LedgerJSON.text(of: $0.value))
            }
        }
        if !channelLedgers.isEmpty {
            let updated = try await connection.query("""
                UPDATE follower_channel SET ledger = t.ledger
                FROM UNNEST(\(channelLedgers.map(\.0.rawValue))::text[], \(channelLedgers.map(\.1))::text[],
                            \(channelLedgers.map(\.2))::text[]) AS t(adventure, id, ledger)
                WHERE follower_channel.id = t.id AND follower_channel.adventure = t.adventure
                RETURNING follower_channel.adventure, follower_channel.id
                """, logger: logger).decodeAll((String, String).self)
            try Self.refuseStrangers(channelLedgers, updated: updated, TickRules.strangerFollowersChannel)
        }
    }

    /// Throws the refusal of the first budget not updated, which undoes the batch:
    /// `recordTicks` then stores each tick alone, and only the one at fault is refused.
    private static func refuseStrangers(_ ledgers: [(adventure: AdventureID, id: String, ledger: String)],
                                        updated: [(adventure: String, id: String)],
                                        _ refusal: (String, AdventureID) -> StoreError) throws {
        guard updated.count < ledgers.count else { return }
        let found = Set(updated.map { [$0.adventure, $0.id] })
        if let stranger = ledgers.first(where: { !found.contains([$0.adventure.rawValue, $0.id]) }) {
            throw refusal(stranger.id, stranger.adventure)
        }
    }

    /// Why the fence refused these ticks: the adventure is unknown, has ended, or
    /// is at another tick.
    private func whyNotStored(_ ticks: [(Int, TickRecord)],
                              _ connection: PostgresConnection) async throws -> [(Int, StoreError)] {
        guard !ticks.isEmpty else { return [] }
        let rows = Dictionary(uniqueKeysWithValues: try await connection.query("""
            SELECT id, status, last_tick, CASE WHEN lease_until > now() THEN lease_holder END
            FROM adventure WHERE id = ANY(\(ticks.map(\.1.adventure.rawValue)))
            """, logger: logger).decodeAll((String, String, Int, String?).self).map { ($0.0, ($0.1, $0.2, $0.3)) })
        return ticks.map { index, record in
            let stored = rows[record.adventure.rawValue].map { status, lastTick, holder in
                TickRules.Stored(status: status, lastTick: lastTick, otherHolder: holder == node ? nil : holder)
            }
            // Refused by the fence yet storable as read now: the row changed between the two.
            return (index, TickRules.fenceRefusal(record, stored: stored)
                ?? TickRules.notAfter(record, lastTick: stored?.lastTick ?? record.tick - 1))
        }
    }
}
