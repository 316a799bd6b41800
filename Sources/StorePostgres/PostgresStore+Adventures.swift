import Foundation
import Game
import PostgresNIO
import PushPolicy
import Store
import Vocabulary

extension PostgresStore {
    public func startAdventure(id: AdventureID, party: PartyID, setup: AdventureSetup, state: AdventureState, startedAt: Int,
                               contentVersion: String, followCode: FollowCode?, outbox: [OutboxMessage],
                               at now: Date) async throws -> StoredAdventure {
        try StoredValueLimits.checkNewAdventure(setup: setup, state: state, startedAt: startedAt, contentVersion: contentVersion)
        let roster = try RosterJSON.text(of: setup.party)
        return try await transaction { [self] connection in
            // One running adventure per party is held by the partial unique index
            // `adventure_one_running_per_party`: of two starts at once, the second
            // insert waits for the first and is refused. The read below only words
            // the usual refusal.
            let partyName = try await connection.query("SELECT name FROM party WHERE id = \(party.rawValue)",
                                                       logger: logger).decodeFirst(String.self)
            guard let partyName else { throw StoreError.unknownParty(party) }
            let members = Set(try await connection.query("""
                SELECT player, hero_id FROM membership WHERE party = \(party.rawValue)
                """, logger: logger).decodeAll((String, String).self).map { PartyMember(player: PlayerID($0.0), hero: HeroID($0.1)) })
            let running = try await connection.query("""
                SELECT id FROM adventure WHERE party = \(party.rawValue) AND status = 'running'
                """, logger: logger).decodeFirst(String.self)
            try AdventureRules.checkStart(roster: setup.party, partyName: partyName, members: members,
                                          running: running.map(AdventureID.init))
            try await connection.query("""
                INSERT INTO adventure (id, party, route_id, content_version, seed, roster, tick_interval, time_limit, started_at,
                                       tick_phase, status, state, last_tick, next_tick_at, follow_code)
                VALUES (\(id.rawValue), \(party.rawValue), \(setup.route.rawValue), \(contentVersion), \(String(setup.seed)),
                        \(roster), \(setup.tickInterval), \(setup.timeLimit), \(startedAt), \(TickSchedule.phase(of: id)),
                        'running', \(ByteBuffer(bytes: StoredGameText.stored(CanonicalJSON.text(of: state)))), 0, \(startedAt + setup.tickInterval), \(followCode?.rawValue))
                """, logger: logger)
            try await enqueue(outbox.map { QueuedMessage(message: $0, adventure: id, tick: 0) }, at: now, connection)
            return try await requireAdventure(id, lock: "", connection)
        }
    }

    public func adventure(_ id: AdventureID) async throws -> StoredAdventure {
        try await transaction { [self] connection in try await requireAdventure(id, lock: "", connection) }
    }

    public func runningAdventures() async throws -> [StoredAdventure] {
        try await adventures(where: "status = 'running' ORDER BY next_tick_at, tick_phase, id", binding: nil)
    }

    public func adventures(of party: PartyID) async throws -> [StoredAdventure] {
        try await transaction { [self] connection in _ = try await requireParty(party, connection) }
        return try await adventures(where: "party = $1 ORDER BY started_at DESC, id", binding: party.rawValue)
    }

    public func enqueueCommand(_ command: Command, for adventure: AdventureID, receivedAt now: Date) async throws -> QueuedCommand {
        let json = try CommandJSON.encode(command)
        return try await transaction { [self] connection in
            // FOR SHARE: a tick storing this adventure's end waits, so no command
            // slips in behind the end; commands may still arrive together.
            let stored = try await requireAdventure(adventure, lock: "FOR SHARE", connection)
            try AdventureRules.checkTakesCommands(adventure, status: stored.status)
            return try await insertCommand(json, command, for: adventure, at: now, connection)
        }
    }

    public func endAdventureRequested(_ adventure: AdventureID, at now: Date) async throws -> QueuedCommand {
        let json = try CommandJSON.encode(.endAdventure)
        return try await transaction { [self] connection in
            // FOR UPDATE: two game masters ending at once take turns on the
            // adventure's row, and the second finds the first's end queued: it is
            // queued (and so applied) once.
            let stored = try await requireAdventure(adventure, lock: "FOR UPDATE", connection)
            let queued = try await connection.query("""
                SELECT id, received_at FROM command WHERE adventure = \(adventure.rawValue) AND tick IS NULL AND command = \(json)
                ORDER BY id LIMIT 1
                """, logger: logger).decodeFirst((Int64, Date).self).map {
                QueuedCommand(id: CommandID($0.0), command: .endAdventure, receivedAt: $0.1)
            }
            if case .queuedAlready(let queued) = try AdventureRules.endRequest(adventure, status: stored.status, queued: queued) {
                return queued
            }
            return try await insertCommand(json, .endAdventure, for: adventure, at: now, connection)
        }
    }

    public func events(of adventure: AdventureID) async throws -> [LoggedEvent] {
        try await transaction { [self] connection in
            _ = try await requireAdventure(adventure, lock: "", connection)
            return try TickEventsText.decoded(try await tickEvents(of: adventure, connection))
        }
    }

    public func commands(of adventure: AdventureID) async throws -> [ScheduledCommand] {
        try await transaction { [self] connection in
            _ = try await requireAdventure(adventure, lock: "", connection)
            return try await connection.query("""
                SELECT tick, command FROM command WHERE adventure = \(adventure.rawValue) AND tick IS NOT NULL ORDER BY tick, id
                """, logger: logger).decodeAll((Int, String).self).map {
                ScheduledCommand(tick: $0.0, command: try CommandJSON.decode($0.1))
            }
        }
    }

    // MARK: - Shared steps

    private func insertCommand(_ json: String, _ command: Command, for adventure: AdventureID, at now: Date,
                               _ connection: PostgresConnection) async throws -> QueuedCommand {
        guard let (id, receivedAt) = try await connection.query("""
            INSERT INTO command (adventure, command, received_at) VALUES (\(adventure.rawValue), \(json), \(now))
            RETURNING id, received_at
            """, logger: logger).decodeFirst((Int64, Date).self)
        else { throw StoreError.corrupt("a command was stored without an id") }
        return QueuedCommand(id: CommandID(id), command: command, receivedAt: receivedAt)
    }

    static let adventureColumns = """
        id, party, route_id, content_version, seed, roster, tick_interval, time_limit, started_at, tick_phase, state, last_tick,
        next_tick_at, ended_at, follow_code
        """

    /// `lock` is a row-locking clause written here, never input.
    func requireAdventure(_ id: AdventureID, lock: StaticString, _ connection: PostgresConnection) async throws -> StoredAdventure {
        var query = PostgresQuery(unsafeSQL: "SELECT \(Self.adventureColumns) FROM adventure WHERE id = $1 \(lock)")
        query.binds.append(id.rawValue, context: .default)
        guard let row = try await connection.query(query, logger: logger).decodeAll(AdventureColumns.self).first else {
            throw StoreError.unknownAdventure(id)
        }
        return try Self.adventure(row)
    }

    func adventures(ids: [String], _ connection: PostgresConnection) async throws -> [StoredAdventure] {
        var query = PostgresQuery(unsafeSQL: "SELECT \(Self.adventureColumns) FROM adventure WHERE id = ANY($1)")
        query.binds.append(ids, context: .default)
        return try await connection.query(query, logger: logger).decodeAll(AdventureColumns.self).map(Self.adventure)
    }

    /// `condition` is SQL written here; its one value is bound as $1.
    private func adventures(where condition: StaticString, binding value: String?) async throws -> [StoredAdventure] {
        var query = PostgresQuery(unsafeSQL: "SELECT \(Self.adventureColumns) FROM adventure WHERE \(condition)")
        if let value { query.binds.append(value, context: .default) }
        return try await self.query(query, logger: logger).decodeAll(AdventureColumns.self).map(Self.adventure)
    }

    typealias AdventureColumns = (String, String, String, String, String, String, Int, Int, Int, Int, Data, Int, Int?, Int?, String?)

    static func adventure(_ row: AdventureColumns) throws -> StoredAdventure {
        let (id, party, route, contentVersion, seedText, roster, tickInterval, timeLimit, startedAt, tickPhase, storedState,
             lastTick, nextTickAt, endedAt, followCodeText) = row
        let seed = try StoredValues.seed(seedText, ofAdventure: id)
        let decoder = JSONDecoder()
        let setup = AdventureSetup(route: RouteID(route), party: try decoder.decode([PartyMember].self, from: Data(roster.utf8)),
                                   tickInterval: tickInterval, timeLimit: timeLimit, seed: seed)
        let followCode = try followCodeText.map { text throws(StoreError) in try StoredValues.followCode(text, ofAdventure: id) }
        return StoredAdventure(id: AdventureID(id), party: PartyID(party), setup: setup, contentVersion: contentVersion,
                               startedAt: startedAt, tickPhase: tickPhase,
                               state: try decoder.decode(AdventureState.self, from: Data(try StoredGameText.text(fromStored: storedState).utf8)),
                               lastTick: lastTick, nextTickAt: nextTickAt, endedAt: endedAt, followCode: followCode)
    }
}
