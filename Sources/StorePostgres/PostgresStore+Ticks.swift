import Foundation
import Game
import PostgresNIO
import PushPolicy
import Store
import Vocabulary

extension PostgresStore {
    public func dueAdventures(at now: Date, limit: Int, skipping: Set<AdventureID>,
                              holding held: HeldByReader) async throws -> [DueAdventure] {
        let (second, phase) = TickSchedule.secondAndPhase(of: now)
        try await takeLeases(dueBy: second)
        return try await snapshot { [self] connection in
            let due = try await connection.query("""
                SELECT id, last_tick, has_follower_channels,
                       EXISTS (SELECT 1 FROM command WHERE command.adventure = adventure.id AND command.tick IS NULL),
                       (SELECT count(*) FROM activity_change WHERE activity_change.adventure = adventure.id)
                FROM adventure
                WHERE status = 'running' AND next_tick_at <= \(second) AND (next_tick_at < \(second) OR tick_phase <= \(phase))
                AND lease_holder = \(node)
                ORDER BY next_tick_at, tick_phase, id LIMIT \(max(0, limit) + skipping.count)
                """, logger: logger).decodeAll((String, Int, Bool, Bool, Int).self)
                .filter { !skipping.contains(AdventureID($0.0)) }.prefix(max(0, limit))
            guard !due.isEmpty else { return [] }
            // Five statements at most whatever the number of adventures: what is due
            // (and whether commands wait for each, how often its activities changed),
            // the adventures the caller does not hold, the commands of those that have
            // some, the activities of those whose activities the caller does not hold,
            // the followers' channels of those that have had one.
            let unknown = due.filter { !held.adventure(AdventureID($0.0), $0.1) }.map(\.0)
            var stored: [String: StoredAdventure] = [:]
            if !unknown.isEmpty {
                for adventure in try await adventures(ids: unknown, connection) { stored[adventure.id.rawValue] = adventure }
            }
            let commanded = due.filter(\.3).map(\.0)
            let commands = commanded.isEmpty ? [:] : try await pendingCommands(of: commanded, connection)
            let unheld = Set(due.filter { id, _, _, _, changes in
                held.readsActivities(of: AdventureID(id), changes: changes, knowsAdventure: stored[id] == nil)
            }.map(\.0))
            let activities = unheld.isEmpty ? [:] : try await reachableActivities(of: Array(unheld), ledgerWanted: { adventure, activity in
                held.readsLedger(of: AdventureID(adventure), activity, knowsAdventure: stored[adventure] == nil)
            }, connection)
            let followed = due.filter(\.2).map(\.0)
            let channels = followed.isEmpty ? [:] : try await openChannels(of: followed, connection)
            return due.map { id, lastTick, _, _, changes in
                DueAdventure(id: AdventureID(id), lastTick: lastTick, stored: stored[id], commands: commands[id] ?? [],
                             activityChanges: changes,
                             activities: unheld.contains(id) ? activities[id] ?? DueActivities() : nil,
                             followerChannels: channels[id] ?? [])
            }
        }
    }

    public func postponeTicks(of adventure: AdventureID, until second: Int) async throws {
        try await query("""
            UPDATE adventure SET next_tick_at = \(second)
            WHERE id = \(adventure.rawValue) AND status = 'running' AND next_tick_at < \(second)
            """, logger: logger)
    }

    public func nextTickDue() async throws -> Date? {
        try await query("""
            SELECT next_tick_at, tick_phase FROM adventure WHERE status = 'running' ORDER BY next_tick_at, tick_phase LIMIT 1
            """, logger: logger).decodeFirst((Int, Int).self).map { TickSchedule.dueInstant(second: $0.0, phase: $0.1) }
    }

    public func tickInputs(of adventure: AdventureID) async throws -> TickInputs {
        try await snapshot { [self] connection in
            let stored = try await requireAdventure(adventure, lock: "", connection)
            let activities = try await reachableActivities(of: [adventure.rawValue], connection)[adventure.rawValue]
            let channels = try await openChannels(of: [adventure.rawValue], connection)[adventure.rawValue] ?? []
            let members = activities?.members ?? [], followers = activities?.followers ?? []
            return TickInputs(
                adventure: stored, commands: try await pendingCommands(of: [adventure.rawValue], connection)[adventure.rawValue] ?? [],
                recipients: members.map(\.recipient), ledgers: activities?.ledgers(of: stored) ?? [:],
                followers: Followers(channels: channels.map(\.recipient), activities: followers.map(\.recipient)),
                followerLedgers: Dictionary(uniqueKeysWithValues: channels.map { ($0.recipient.channel, $0.ledger) }))
        }
    }

    // MARK: - Reading many adventures at once

    /// Runs `body` in one read-only transaction that sees one snapshot throughout
    /// (REPEATABLE READ), as SQLite's WAL reader does.
    func snapshot<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await transaction { [self] connection in
            try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
            return try await body(connection)
        }
    }

    /// Waiting commands by adventure, each adventure's in the order they arrived.
    private func pendingCommands(of adventures: [String],
                                 _ connection: PostgresConnection) async throws -> [String: [QueuedCommand]] {
        var commands: [String: [QueuedCommand]] = [:]
        for (adventure, id, json, receivedAt) in try await connection.query("""
            SELECT adventure, id, command, received_at FROM command WHERE adventure = ANY(\(adventures)) AND tick IS NULL
            ORDER BY adventure, id
            """, logger: logger).decodeAll((String, Int64, String, Date).self) {
            commands[adventure, default: []].append(
                QueuedCommand(id: CommandID(id), command: try CommandJSON.decode(json), receivedAt: receivedAt))
        }
        return commands
    }

    /// The activities that can receive a push now (active, with a valid token) by
    /// adventure, each adventure's in the order they were registered: the members'
    /// and, apart, the followers' own (no hero). Each with its budget where
    /// `ledgerWanted(adventure, activity)`, else none; a budget with the tick of
    /// the activity's newest push, through the messages' index by target.
    private func reachableActivities(of adventures: [String],
                                     ledgerWanted: (String, ActivityID) -> Bool = { _, _ in true },
                                     _ connection: PostgresConnection) async throws -> [String: DueActivities] {
        var activities: [String: DueActivities] = [:]
        for (adventure, id, player, hero, frequentUpdates, locale, ledger, newestPushTick) in try await connection.query("""
            SELECT a.adventure, a.id, a.player, a.hero_id, a.frequent_updates, a.locale, a.ledger,
                   (SELECT m.tick FROM outbox_message m
                    WHERE m.target_kind = 'liveActivity' AND m.target_id = a.id AND m.tick IS NOT NULL
                    ORDER BY m.id DESC LIMIT 1)
            FROM live_activity a
            JOIN activity_token t ON t.activity = a.id AND t.invalidated_at IS NULL
            WHERE a.adventure = ANY(\(adventures)) AND a.status = 'active'
            ORDER BY a.adventure, a.created_at, a.id
            """, logger: logger).decodeAll((String, String, String, String?, Bool, String, String, Int?).self) {
            let wanted = ledgerWanted(adventure, ActivityID(id))
            let budget = wanted ? try Self.ledger(ledger) : nil, newest = wanted ? newestPushTick : nil
            if let hero {
                let recipient = LiveActivityRecipient(activityID: ActivityID(id), player: PlayerID(player), hero: HeroID(hero),
                                                      frequentUpdates: frequentUpdates, language: locale)
                activities[adventure, default: DueActivities()].members.append(
                    DueActivity(recipient: recipient, ledger: budget, newestPushTick: newest))
            } else {
                let recipient = FollowerActivityRecipient(activityID: ActivityID(id), player: PlayerID(player),
                                                          frequentUpdates: frequentUpdates, language: locale)
                activities[adventure, default: DueActivities()].followers.append(
                    DueFollowerActivity(recipient: recipient, ledger: budget, newestPushTick: newest))
            }
        }
        return activities
    }

    /// The open followers' channels of these adventures with their budgets, by adventure and language.
    func openChannels(of adventures: [String], _ connection: PostgresConnection) async throws -> [String: [DueFollowerChannel]] {
        var channels: [String: [DueFollowerChannel]] = [:]
        for (adventure, id, language, policy, ledger) in try await connection.query("""
            SELECT adventure, id, language, storage_policy, ledger FROM follower_channel
            WHERE adventure = ANY(\(adventures)) AND state = 'open' ORDER BY adventure, language
            """, logger: logger).decodeAll((String, String, String, Int, String).self) {
            let storagePolicy = try StoredValues.storagePolicy(policy, ofFollowersChannel: id)
            channels[adventure, default: []].append(DueFollowerChannel(
                recipient: FollowerChannelRecipient(channel: FollowerChannelID(id), language: language, storagePolicy: storagePolicy),
                ledger: try Self.ledger(ledger)))
        }
        return channels
    }
}
