import Foundation
import Game
import GRDB
import PushPolicy
import Store
import Vocabulary

extension SQLiteStore {
    /// Running adventures whose next tick is due by `now` (its second, then its
    /// phase), most overdue first, from one snapshot, leaving out those in
    /// `skipping`. What the caller holds already (`held`: the adventure at its tick,
    /// its activities as of their changes, their budgets) is not read; for an
    /// adventure it does not hold, everything is.
    public func dueAdventures(at now: Date, limit: Int, skipping: Set<AdventureID>,
                              holding held: HeldByReader) async throws -> [DueAdventure] {
        let (second, phase) = TickSchedule.secondAndPhase(of: now)
        return try await read { db in
            var due: [(id: AdventureID, lastTick: Int, hasChannels: Bool, hasCommands: Bool, activityChanges: Int)] = []
            try db.cachedStatement(sql: Self.dueAdventuresSQL)
                .forEachRow({ $0.add(second); $0.add(second); $0.add(phase); $0.add(max(0, limit) + skipping.count) }) { row in
                    let id = AdventureID(row.string(0))
                    if due.count < limit, !skipping.contains(id) {
                        due.append((id: id, lastTick: row.int(1), hasChannels: row.bool(2), hasCommands: row.bool(3),
                                    activityChanges: row.int(4)))
                    }
                }
            // Looked up in GRDB's cache once, not for each adventure (a lookup hashes the whole text).
            let activitiesStatement = try db.cachedStatement(sql: Self.reachableActivitiesSQL)
            return try due.map { id, lastTick, hasChannels, hasCommands, activityChanges in
                let known = held.adventure(id, lastTick)
                let stored = known ? nil : try Self.requireAdventure(id, db).value()
                let activities = held.readsActivities(of: id, changes: activityChanges, knowsAdventure: known)
                    ? try Self.reachableActivities(of: id, withLedger: { held.readsLedger(of: id, $0, knowsAdventure: known) },
                                                   activitiesStatement, db)
                    : nil
                return DueAdventure(id: id, lastTick: lastTick, stored: stored,
                                    commands: hasCommands ? try Self.pendingCommands(for: id, db) : [],
                                    activityChanges: activityChanges, activities: activities,
                                    followerChannels: hasChannels ? try Self.openChannels(of: id, db) : [])
            }
        }
    }

    /// The due adventures, each with whether commands wait for it and how often
    /// its activities changed: most ticks have no command and no change, and
    /// asking here, through the two indexes, spares each a statement.
    static let dueAdventuresSQL = """
        SELECT id, lastTick, hasFollowerChannels, EXISTS (SELECT 1 FROM command WHERE command.adventure = adventure.id AND command.tick IS NULL),
               (SELECT count(*) FROM activityChange WHERE activityChange.adventure = adventure.id)
        FROM adventure
        WHERE status = 'running' AND nextTickAt <= ? AND (nextTickAt < ? OR tickPhase <= ?)
        ORDER BY nextTickAt, tickPhase, id LIMIT ?
        """

    /// The adventure's activities that can receive a push now (active, with a
    /// valid token), in the order they were registered, each budget decoded only
    /// where `withLedger(activityID)` asks for it: the members' and, apart, the
    /// followers' own (no hero).
    /// `statement` is `reachableActivitiesSQL`'s.
    static func reachableActivities(of adventure: AdventureID, withLedger: (ActivityID) -> Bool, _ statement: Statement,
                                    _ db: Database) throws -> DueActivities {
        var members: [DueActivity] = [], followers: [DueFollowerActivity] = []
        var ledgers: AdventureLedgers?
        func ledger(of activity: ActivityID) throws -> BudgetLedger {
            if ledgers == nil { ledgers = try AdventureLedgers.stored(of: adventure, db) }
            return try ledgers!.ledger(of: activity)
        }
        // Each row is read in place, not copied first: the rows are read once.
        try statement.forEachRow({ $0.add(adventure.rawValue) }) { activity in
            let activityID = ActivityID(activity.string(0)), player = PlayerID(activity.string(1))
            let ledger = withLedger(activityID) ? try ledger(of: activityID) : nil
            let (frequentUpdates, language) = (activity.bool(3), activity.string(4))
            if let hero = activity.optionalString(2) {
                members.append(DueActivity(recipient: LiveActivityRecipient(
                    activityID: activityID, player: player, hero: HeroID(hero), frequentUpdates: frequentUpdates, language: language),
                                           ledger: ledger))
            } else {
                followers.append(DueFollowerActivity(recipient: FollowerActivityRecipient(
                    activityID: activityID, player: player, frequentUpdates: frequentUpdates, language: language), ledger: ledger))
            }
        }
        let read = Set(members.filter { $0.ledger != nil }.map(\.recipient.activityID)
                       + followers.filter { $0.ledger != nil }.map(\.recipient.activityID))
        if !read.isEmpty {
            let newest = try newestPushTicks(of: adventure, among: read, db)
            for index in members.indices { members[index].newestPushTick = newest[members[index].recipient.activityID] }
            for index in followers.indices { followers[index].newestPushTick = newest[followers[index].recipient.activityID] }
        }
        return DueActivities(members: members, followers: followers)
    }

    /// The tick of the newest push a tick queued for each of `activities` that
    /// has one: through the adventure's chain of tick rows from the newest (v16),
    /// each row's pushes through its range (v15), until each is found or the
    /// chain ends. A push queued before v15 is not in a range; a budget written
    /// before this version holds its last push's time itself. An activity that
    /// has had no push (one registered a moment ago) walks the whole chain, a
    /// lookup by id a tick; the budget is read only when the ticker does not hold it.
    static func newestPushTicks(of adventure: AdventureID, among activities: Set<ActivityID>,
                                _ db: Database) throws -> [ActivityID: Int] {
        var newest: [ActivityID: Int] = [:]
        var row = try Int64.fetchOne(db.cachedStatement(sql: "SELECT lastTickRow FROM adventure WHERE id = ?"),
                                     arguments: [adventure.rawValue])
        let tickRow = try db.cachedStatement(sql: "SELECT tick, firstPush, lastPush, previous FROM tickEvents WHERE id = ?")
        let targets = try db.cachedStatement(sql: """
            SELECT targetID FROM outboxMessage WHERE id BETWEEN ? AND ? AND targetKind = 'liveActivity'
            """)
        while let id = row, newest.count < activities.count {
            row = nil
            try tickRow.forEachRow({ $0.add(id) }) { tick in
                row = tick.optionalInt64(3)
                guard let first = tick.optionalInt64(1), let last = tick.optionalInt64(2) else { return }
                let at = tick.int(0)
                try targets.forEachRow({ $0.add(first); $0.add(last) }) { target in
                    let activity = ActivityID(target.string(0))
                    if activities.contains(activity), newest[activity] == nil { newest[activity] = at }
                }
            }
        }
        return newest
    }

    static let reachableActivitiesSQL = """
        SELECT liveActivity.id, player, heroID, frequentUpdates, locale FROM liveActivity
        JOIN activityToken ON activityToken.activity = liveActivity.id AND activityToken.invalidatedAt IS NULL
        WHERE liveActivity.adventure = ? AND liveActivity.status = 'active'
        ORDER BY liveActivity.createdAt, liveActivity.id
        """

    /// The adventure's open followers' channels with their budgets, by language.
    static func openChannels(of adventure: AdventureID, _ db: Database) throws -> [DueFollowerChannel] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT id, language, storagePolicy, ledger FROM followerChannel INDEXED BY followerChannel_open
            WHERE adventure = ? AND state = 'open' ORDER BY language
            """), arguments: [adventure.rawValue]).map { row in
            let storagePolicy = try StoredValues.storagePolicy(row[2], ofFollowersChannel: row[0])
            return DueFollowerChannel(recipient: FollowerChannelRecipient(channel: FollowerChannelID(row[0] as String),
                                                                          language: row[1], storagePolicy: storagePolicy),
                                      ledger: try Self.ledger(row[3] as String))
        }
    }

    static func ledger(_ text: String) throws -> BudgetLedger {
        try LiveActivityRow.databaseJSONDecoder(for: "ledger").decode(BudgetLedger.self, from: Data(text.utf8))
    }

    /// One process writes a SQLite file: it holds every adventure, and there is
    /// no lease to renew or give up.
    public func renewLeases() async throws -> HeldAdventures { .all }

    public func releaseLeases() async throws {}

    public var node: String { claimant }

    public func liveNodes() async throws -> Int { 1 }

    /// When the earliest running adventure's next tick is due, to the millisecond.
    public func nextTickDue() async throws -> Date? {
        try await read { db in
            try Row.fetchOne(db.cachedStatement(sql: """
                SELECT nextTickAt, tickPhase FROM adventure WHERE status = 'running' ORDER BY nextTickAt, tickPhase LIMIT 1
                """)).map { TickSchedule.dueInstant(second: $0[0], phase: $0[1]) }
        }
    }
}
