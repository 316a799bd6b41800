import Foundation
import Game
import PostgresNIO
import PushPolicy
import Store
import Vocabulary

extension PostgresStore {
    public func registerLiveActivity(activityID: ActivityID, player: PlayerID, adventure: AdventureID, hero: HeroID?,
                                     token: PushToken, frequentUpdates: Bool, locale: String,
                                     at now: Date) async throws -> LiveActivity {
        let locale = try StoredValueLimits.checkedLocale(locale)
        try StoredValueLimits.checkActivityID(activityID)
        let registration = ActivityRules.Registration(activity: activityID, player: player, adventure: adventure, hero: hero)
        return try await transaction { [self] connection in
            // FOR SHARE: the adventure cannot end (a tick takes its row FOR UPDATE)
            // between the check that it runs and the new activity's commit.
            let stored = try await requireAdventure(adventure, lock: "FOR SHARE", connection)
            // FOR SHARE: the follower cannot leave between this check and the commit.
            let delivery: String? = try await hero != nil ? nil : connection.query("""
                SELECT delivery FROM follower WHERE adventure = \(adventure.rawValue) AND player = \(player.rawValue)
                AND status = 'following' FOR SHARE
                """, logger: logger).decodeFirst(String.self)
            try ActivityRules.checkRegistrant(registration, roster: stored.setup.party,
                                              followerDelivery: delivery.flatMap(FollowerDelivery.init(rawValue:)))
            // Two registrations of one new activity at once: the primary key lets one
            // insert; the other finds it below, as a repeat or a rotation.
            let inserted = stored.status == .running ? try await connection.query("""
                INSERT INTO live_activity (id, player, adventure, hero_id, frequent_updates, locale, status, ledger, created_at)
                VALUES (\(activityID.rawValue), \(player.rawValue), \(adventure.rawValue), \(hero?.rawValue), \(frequentUpdates),
                        \(locale), 'active', \(LedgerJSON.text(of: BudgetLedger())), \(now))
                ON CONFLICT (id) DO NOTHING RETURNING id
                """, logger: logger).decodeFirst(String.self) != nil : false
            guard let existing = try await lockedActivity(activityID, connection) else {
                try ActivityRules.checkNew(in: adventure, isRunning: stored.status == .running)
                throw StoreError.corrupt("activity \(activityID) was not stored")
            }
            if !inserted { try ActivityRules.checkRepeat(registration, of: existing) }
            try await install(token, for: activityID, existing, at: now, connection)
            return try await liveActivity(activityID, connection)
        }
    }

    public func rotateToken(activityID: ActivityID, newToken: PushToken, by player: PlayerID,
                            at now: Date) async throws -> LiveActivity {
        try await transaction { [self] connection in
            let activity = try await requireActivity(activityID, of: player, connection)
            try await install(newToken, for: activityID, activity, at: now, connection)
            return try await liveActivity(activityID, connection)
        }
    }

    public func markActivity(_ activityID: ActivityID, _ status: ReportedActivityStatus, by player: PlayerID) async throws -> LiveActivity {
        try await transaction { [self] connection in
            let activity = try await requireActivity(activityID, of: player, connection)
            if let newStatus = ActivityRules.statusAfter(report: status, stored: activity.status) {
                try await connection.query("""
                    UPDATE live_activity SET status = \(newStatus.rawValue) WHERE id = \(activityID.rawValue)
                    """, logger: logger)
            }
            return try await liveActivity(activityID, connection)
        }
    }

    public func liveActivity(_ id: ActivityID) async throws -> LiveActivity {
        try await transaction { [self] connection in try await liveActivity(id, connection) }
    }

    public func registerPushToStartToken(deviceID: DeviceID, player: PlayerID, token: PushToken, locale: String,
                                         at now: Date) async throws -> Device {
        let locale = try StoredValueLimits.checkedLocale(locale)
        try StoredValueLimits.checkDeviceID(deviceID)
        return try await transaction { [self] connection in
            try await requirePlayer(player, lock: "FOR SHARE", connection)
            // One statement: the upsert updates only the owner's row, so of two players
            // presenting one new device id at once, the second gets no row back, and
            // the rule sees the first's.
            let stored = try await connection.query("""
                INSERT INTO device (id, player, push_to_start_token, push_to_start_token_registered_at, locale, updated_at)
                VALUES (\(deviceID.rawValue), \(player.rawValue), \(token.hex), \(now), \(locale), \(now))
                ON CONFLICT (id) DO UPDATE SET push_to_start_token = excluded.push_to_start_token,
                    push_to_start_token_registered_at = excluded.push_to_start_token_registered_at,
                    push_to_start_token_invalid_at = NULL, push_to_start_token_invalid_reason = NULL,
                    locale = excluded.locale, updated_at = excluded.updated_at
                WHERE device.player = excluded.player
                RETURNING id
                """, logger: logger).decodeFirst(String.self)
            if stored == nil {
                let owner = try await connection.query("SELECT player FROM device WHERE id = \(deviceID.rawValue)", logger: logger)
                    .decodeFirst(String.self)
                try ActivityRules.checkDeviceOwner(deviceID, owner: owner.map(PlayerID.init), player: player)
            }
            return Device(id: deviceID, player: player, pushToStartToken: token, locale: locale, updatedAt: now)
        }
    }

    public func pushToStartDevices(of roster: [PartyMember]) async throws -> [PushToStartDevice] {
        let players = roster.map(\.player.rawValue)
        let devices = try await query("""
            SELECT id, player, locale FROM device WHERE player = ANY(\(players)) AND push_to_start_token IS NOT NULL
            AND push_to_start_token_invalid_at IS NULL ORDER BY id
            """, logger: logger).decodeAll((String, String, String).self)
        return roster.flatMap { member in
            devices.filter { $0.1 == member.player.rawValue }.map { id, _, locale in
                PushToStartDevice(device: DeviceID(id),
                                  recipient: PushToStartRecipient(player: member.player, hero: member.hero, language: locale))
            }
        }
    }

    // MARK: - Shared steps

    /// The activity's row FOR UPDATE: rotations of one activity take turns, so each
    /// sees the token the one before installed.
    private func lockedActivity(_ id: ActivityID, _ connection: PostgresConnection) async throws -> ActivityRules.Stored? {
        guard let (player, adventure, hero, status) = try await connection.query("""
            SELECT player, adventure, hero_id, status FROM live_activity WHERE id = \(id.rawValue) FOR UPDATE
            """, logger: logger).decodeFirst((String, String, String?, String).self)
        else { return nil }
        guard let status = LiveActivityStatus(rawValue: status) else { throw StoreError.corrupt("status of activity \(id)") }
        return ActivityRules.Stored(player: PlayerID(player), adventure: AdventureID(adventure), hero: hero.map { HeroID($0) },
                                    status: status)
    }

    private func requireActivity(_ id: ActivityID, of player: PlayerID,
                                 _ connection: PostgresConnection) async throws -> ActivityRules.Stored {
        guard let activity = try await lockedActivity(id, connection) else { throw StoreError.unknownActivity(id) }
        try ActivityRules.checkOwner(id, activity, player: player)
        return activity
    }

    /// Makes `token` the activity's one valid token; idempotent for the current
    /// one. The caller holds the activity's row lock, and the partial unique index
    /// `activity_token_one_valid` refuses a second valid token whatever happens.
    private func install(_ token: PushToken, for id: ActivityID, _ activity: ActivityRules.Stored, at now: Date,
                         _ connection: PostgresConnection) async throws {
        let current = try await connection.query("""
            SELECT token FROM activity_token WHERE activity = \(id.rawValue) AND invalidated_at IS NULL
            """, logger: logger).decodeFirst(String.self)
        guard try ActivityRules.installs(token, on: id, status: activity.status, current: current.map(PushToken.init(stored:)))
        else { return }
        try await connection.query("""
            UPDATE activity_token SET invalidated_at = \(now), invalid_reason = 'rotated'
            WHERE activity = \(id.rawValue) AND invalidated_at IS NULL
            """, logger: logger)
        try await connection.query("""
            INSERT INTO activity_token (activity, token, registered_at) VALUES (\(id.rawValue), \(token.hex), \(now))
            """, logger: logger)
    }

    func liveActivity(_ id: ActivityID, _ connection: PostgresConnection) async throws -> LiveActivity {
        guard let row = try await connection.query("""
            SELECT a.player, a.adventure, a.hero_id, a.frequent_updates, a.locale, a.status, a.ledger, a.created_at, t.token
            FROM live_activity a LEFT JOIN activity_token t ON t.activity = a.id AND t.invalidated_at IS NULL
            WHERE a.id = \(id.rawValue)
            """, logger: logger).decodeFirst((String, String, String?, Bool, String, String, String, Date, String?).self)
        else { throw StoreError.unknownActivity(id) }
        let (player, adventure, hero, frequentUpdates, locale, status, ledger, createdAt, token) = row
        guard let status = LiveActivityStatus(rawValue: status) else { throw StoreError.corrupt("status of activity \(id)") }
        return LiveActivity(id: id, player: PlayerID(player), adventure: AdventureID(adventure), hero: hero.map { HeroID($0) },
                            frequentUpdates: frequentUpdates, locale: locale, status: status,
                            token: token.map(PushToken.init(stored:)), ledger: try Self.ledger(ledger), createdAt: createdAt)
    }

    static func ledger(_ text: String) throws -> BudgetLedger {
        try JSONDecoder().decode(BudgetLedger.self, from: Data(text.utf8))
    }
}
