import Foundation
import Game
import GRDB
import PushPolicy
import Store
import Vocabulary

extension SQLiteStore {
    /// Stores a new adventure at tick 0 and its first pushes (push-to-start) in one
    /// transaction: either the adventure exists with its starts queued, or neither.
    ///
    /// `id` is made by the caller because the start pushes already carry it.
    /// `AdventureRules.checkStart` decides whether the party may start it.
    @discardableResult
    public func startAdventure(
        id: AdventureID = .random(), party: PartyID, setup: AdventureSetup, state: AdventureState, startedAt: Int,
        contentVersion: String, followCode: FollowCode?, outbox: [OutboxMessage], at now: Date
    ) async throws -> StoredAdventure {
        try StoredValueLimits.checkNewAdventure(setup: setup, state: state, startedAt: startedAt, contentVersion: contentVersion)
        return try await write { db in
            let partyRow = try Self.requireParty(party, db)
            try AdventureRules.checkStart(roster: setup.party, partyName: partyRow.name,
                                          members: Set(try Self.members(of: party, db).map(\.member)),
                                          running: try Self.runningAdventureID(of: party, db))
            let roster = try RosterJSON.text(of: setup.party)
            try db.execute(sql: """
                INSERT INTO adventure (id, party, routeID, contentVersion, seed, roster, tickInterval, timeLimit, startedAt,
                                       tickPhase, status, state, lastTick, nextTickAt, followCode)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running', ?, 0, ?, ?)
                """, arguments: [
                    id.rawValue, party.rawValue, setup.route.rawValue, contentVersion, String(setup.seed), roster,
                    setup.tickInterval, setup.timeLimit, startedAt, TickSchedule.phase(of: id), CanonicalJSON.text(of: state),
                    startedAt + setup.tickInterval, followCode?.rawValue,
                ])
            for message in outbox {
                try Self.enqueue(message, adventure: id, tick: 0, at: now.databaseValue, db)
            }
            return try Self.requireAdventure(id, db).value()
        }
    }

    public func adventure(_ id: AdventureID) async throws -> StoredAdventure {
        try await read { db in try Self.requireAdventure(id, db).value() }
    }

    public func runningAdventures() async throws -> [StoredAdventure] {
        try await read { db in
            try AdventureRow.fetchAll(db, sql: "SELECT * FROM adventure WHERE status = 'running' ORDER BY nextTickAt, tickPhase, id")
                .map { try $0.value() }
        }
    }

    /// Puts off the next tick of an adventure that cannot be played now (its heroes
    /// are gone from the content, say), so it stops holding the head of the due
    /// queue. Its game time is unchanged: when it plays again, each tick keeps the
    /// time `startedAt + tick × tickInterval`.
    public func postponeTicks(of adventure: AdventureID, until second: Int) async throws {
        try await write { db in
            try db.execute(sql: """
                UPDATE adventure SET nextTickAt = ? WHERE id = ? AND status = 'running' AND nextTickAt < ?
                """, arguments: [second, adventure.rawValue, second])
        }
    }

    /// Every adventure the party has had, the newest first.
    public func adventures(of party: PartyID) async throws -> [StoredAdventure] {
        try await read { db in
            _ = try Self.requireParty(party, db)
            return try AdventureRow.fetchAll(db, sql: "SELECT * FROM adventure WHERE party = ? ORDER BY startedAt DESC, id",
                                             arguments: [party.rawValue]).map { try $0.value() }
        }
    }

    /// Queues a command for the adventure's next tick. It is applied, and stored
    /// with that tick, by `recordTick`.
    @discardableResult
    public func enqueueCommand(_ command: Command, for adventure: AdventureID,
                               receivedAt now: Date) async throws -> QueuedCommand {
        let json = try CommandJSON.encode(command)
        return try await write { db in
            try AdventureRules.checkTakesCommands(adventure, status: try Self.requireAdventure(adventure, db).status)
            let row = try CommandRow(adventure: adventure.rawValue, command: json, receivedAt: now).insertAndFetch(db)
            return QueuedCommand(id: CommandID(row.id!), command: command, receivedAt: row.receivedAt)
        }
    }

    /// A game master ends the adventure: like any command, it takes effect at the
    /// next tick, so the end is in the event log and a replay reproduces it.
    /// Asking twice queues it once.
    @discardableResult
    public func endAdventureRequested(_ adventure: AdventureID, at now: Date) async throws -> QueuedCommand {
        let json = try CommandJSON.encode(.endAdventure)
        return try await write { db in
            let status = try Self.requireAdventure(adventure, db).status
            let queued = try CommandRow.fetchOne(db, sql: """
                SELECT * FROM command WHERE adventure = ? AND tick IS NULL AND command = ? ORDER BY id LIMIT 1
                """, arguments: [adventure.rawValue, json]).map {
                QueuedCommand(id: CommandID($0.id!), command: .endAdventure, receivedAt: $0.receivedAt)
            }
            if case .queuedAlready(let queued) = try AdventureRules.endRequest(adventure, status: status, queued: queued) {
                return queued
            }
            let row = try CommandRow(adventure: adventure.rawValue, command: json, receivedAt: now).insertAndFetch(db)
            return QueuedCommand(id: CommandID(row.id!), command: .endAdventure, receivedAt: row.receivedAt)
        }
    }

    /// The adventure, its queued commands, and its recipients with their budgets,
    /// from one snapshot: what the ticker feeds `Game.tick` and `PushPolicy`.
    public func tickInputs(of adventure: AdventureID) async throws -> TickInputs {
        try await read { db in try Self.tickInputs(of: adventure, db) }
    }

    static func tickInputs(of adventure: AdventureID, _ db: Database) throws -> TickInputs {
        let row = try requireAdventure(adventure, db)
        let stored = try row.value()
        let activities = try reachableActivities(of: adventure, withLedger: { _ in true },
                                                 db.cachedStatement(sql: reachableActivitiesSQL), db)
        let channels = row.hasFollowerChannels == true ? try openChannels(of: adventure, db) : []
        return TickInputs(
            adventure: stored, commands: try pendingCommands(for: adventure, db),
            recipients: activities.members.map(\.recipient), ledgers: activities.ledgers(of: stored),
            followers: Followers(channels: channels.map(\.recipient), activities: activities.followers.map(\.recipient)),
            followerLedgers: Dictionary(uniqueKeysWithValues: channels.map { ($0.recipient.channel, $0.ledger) }))
    }

    /// The applied commands with the tick each was applied at: with the setup, what
    /// a replay needs to play the adventure again.
    public func commands(of adventure: AdventureID) async throws -> [ScheduledCommand] {
        try await read { db in
            _ = try Self.requireAdventure(adventure, db)
            return try Self.appliedCommands(of: adventure, db)
        }
    }

    /// The event log, in the order the events happened.
    public func events(of adventure: AdventureID) async throws -> [LoggedEvent] {
        try await read { db in
            _ = try Self.requireAdventure(adventure, db)
            return try Self.eventLog(of: adventure, db)
        }
    }

    // MARK: - Shared checks

    static func requireAdventure(_ id: AdventureID, _ db: Database) throws -> AdventureRow {
        guard let row = try AdventureRow.fetchOne(db, key: id.rawValue) else { throw StoreError.unknownAdventure(id) }
        return row
    }

    static func pendingCommands(for adventure: AdventureID, _ db: Database) throws -> [QueuedCommand] {
        try CommandRow.fetchAll(db.cachedStatement(sql: "SELECT * FROM command WHERE adventure = ? AND tick IS NULL ORDER BY id"),
                                arguments: [adventure.rawValue])
            .map { QueuedCommand(id: CommandID($0.id!), command: try $0.decodedCommand(), receivedAt: $0.receivedAt) }
    }
}
