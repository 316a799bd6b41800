import Foundation
import Game
import GRDB
import PushPolicy
import Store
import Vocabulary

extension SQLiteStore {

    /// Registers a Live Activity the app started (or that a push-to-start created)
    /// for one of the player's heroes in a running adventure, with its push token;
    /// without a hero, the activity of a player who follows the adventure per token.
    /// Sending the same registration again changes nothing; the same activity with
    /// another token is a rotation. `locale` is the catalog language its texts use.
    @discardableResult
    public func registerLiveActivity(
        activityID: ActivityID, player: PlayerID, adventure: AdventureID, hero: HeroID?, token: PushToken,
        frequentUpdates: Bool, locale: String, at now: Date
    ) async throws -> LiveActivity {
        let locale = try StoredValueLimits.checkedLocale(locale)
        try StoredValueLimits.checkActivityID(activityID)
        let registration = ActivityRules.Registration(activity: activityID, player: player, adventure: adventure, hero: hero)
        return try await write { db in
            let stored = try Self.requireAdventure(adventure, db)
            let delivery: String? = try hero != nil ? nil : String.fetchOne(db, sql: """
                SELECT delivery FROM follower WHERE adventure = ? AND player = ? AND status = 'following'
                """, arguments: [adventure.rawValue, player.rawValue])
            try ActivityRules.checkRegistrant(registration, roster: stored.roster,
                                              followerDelivery: delivery.flatMap(FollowerDelivery.init(rawValue:)))
            if let existing = try LiveActivityRow.fetchOne(db, key: activityID.rawValue) {
                try ActivityRules.checkRepeat(registration, of: existing.stored)
                try Self.install(token, for: existing, at: now, db)
                return try Self.liveActivity(activityID, db)
            }
            try ActivityRules.checkNew(in: adventure, isRunning: stored.status == .running)
            let row = LiveActivityRow(id: activityID.rawValue, player: player.rawValue, adventure: adventure.rawValue,
                                      heroID: hero?.rawValue, frequentUpdates: frequentUpdates, locale: locale,
                                      status: .active, createdAt: now)
            try row.insert(db)
            try ActivityTokenRow(activity: row.id, token: token.hex, registeredAt: now).insert(db)
            return try Self.liveActivity(activityID, db)
        }
    }

    /// The app reports a new push token for its activity. The previous token is
    /// invalidated in the same transaction ("rotated"), so from this commit on every
    /// push, including those already queued, goes to the new one.
    @discardableResult
    public func rotateToken(activityID: ActivityID, newToken: PushToken, by player: PlayerID,
                            at now: Date) async throws -> LiveActivity {
        try await write { db in
            let row = try Self.requireActivity(activityID, of: player, db)
            try Self.install(newToken, for: row, at: now, db)
            return try Self.liveActivity(activityID, db)
        }
    }

    /// The app saw its activity end or the user dismissed it: nothing more is sent
    /// to it, and pushes still queued for it are dropped when their turn comes.
    @discardableResult
    public func markActivity(_ activityID: ActivityID, _ status: ReportedActivityStatus, by player: PlayerID) async throws -> LiveActivity {
        try await write { db in
            let row = try Self.requireActivity(activityID, of: player, db)
            if let newStatus = ActivityRules.statusAfter(report: status, stored: row.status) {
                try db.execute(sql: "UPDATE liveActivity SET status = ? WHERE id = ?",
                               arguments: [newStatus.rawValue, activityID.rawValue])
            }
            return try Self.liveActivity(activityID, db)
        }
    }

    public func liveActivity(_ id: ActivityID) async throws -> LiveActivity {
        try await read { db in try Self.liveActivity(id, db) }
    }

    /// Registers the device's push-to-start token, replacing the one it had.
    @discardableResult
    public func registerPushToStartToken(deviceID: DeviceID, player: PlayerID, token: PushToken, locale: String,
                                         at now: Date) async throws -> Device {
        let locale = try StoredValueLimits.checkedLocale(locale)
        try StoredValueLimits.checkDeviceID(deviceID)
        // Every app sends this at each launch: cached statements, not the query
        // interface, which built and prepared the upsert's SQL on every request.
        return try await write { db in
            _ = try Self.requirePlayer(player, db)
            let owner = try String.fetchOne(db.cachedStatement(sql: "SELECT player FROM device WHERE id = ?"),
                                            arguments: [deviceID.rawValue])
            try ActivityRules.checkDeviceOwner(deviceID, owner: owner.map(PlayerID.init), player: player)
            try db.cachedStatement(sql: """
                INSERT INTO device (id, player, pushToStartToken, pushToStartTokenRegisteredAt, pushToStartTokenInvalidAt,
                                    pushToStartTokenInvalidReason, locale, updatedAt)
                VALUES (?, ?, ?, ?, NULL, NULL, ?, ?)
                ON CONFLICT (id) DO UPDATE SET pushToStartToken = excluded.pushToStartToken,
                    pushToStartTokenRegisteredAt = excluded.pushToStartTokenRegisteredAt, pushToStartTokenInvalidAt = NULL,
                    pushToStartTokenInvalidReason = NULL, locale = excluded.locale, updatedAt = excluded.updatedAt
                """).execute(arguments: [deviceID.rawValue, player.rawValue, token.hex, now, locale, now])
            return Device(id: deviceID, player: player, pushToStartToken: token, locale: locale, updatedAt: now)
        }
    }

    /// The roster's devices with a valid push-to-start token, in roster order.
    public func pushToStartDevices(of roster: [PartyMember]) async throws -> [PushToStartDevice] {
        try await read { db in try Self.pushToStartDevices(of: roster, db) }
    }

    // MARK: - Shared steps

    /// Makes `token` the activity's one valid token. Idempotent for the current one.
    private static func install(_ token: PushToken, for activity: LiveActivityRow, at now: Date, _ db: Database) throws {
        let current = try String.fetchOne(db, sql: "SELECT token FROM activityToken WHERE activity = ? AND invalidatedAt IS NULL",
                                          arguments: [activity.id])
        guard try ActivityRules.installs(token, on: ActivityID(activity.id), status: activity.status,
                                         current: current.map(PushToken.init(stored:)))
        else { return }
        try db.execute(sql: """
            UPDATE activityToken SET invalidatedAt = ?, invalidReason = 'rotated'
            WHERE activity = ? AND invalidatedAt IS NULL
            """, arguments: [now, activity.id])
        try ActivityTokenRow(activity: activity.id, token: token.hex, registeredAt: now).insert(db)
    }

    static func requireActivity(_ id: ActivityID, of player: PlayerID, _ db: Database) throws -> LiveActivityRow {
        guard let row = try LiveActivityRow.fetchOne(db, key: id.rawValue) else { throw StoreError.unknownActivity(id) }
        try ActivityRules.checkOwner(id, row.stored, player: player)
        return row
    }

    static func liveActivity(_ id: ActivityID, _ db: Database) throws -> LiveActivity {
        guard let row = try LiveActivityRow.fetchOne(db, key: id.rawValue) else { throw StoreError.unknownActivity(id) }
        let token = try String.fetchOne(db, sql: "SELECT token FROM activityToken WHERE activity = ? AND invalidatedAt IS NULL",
                                        arguments: [id.rawValue])
        return row.value(token: token, ledger: try AdventureLedgers.stored(of: AdventureID(row.adventure), db).ledger(of: id))
    }

    static func pushToStartDevices(of roster: [PartyMember], _ db: Database) throws -> [PushToStartDevice] {
        try roster.flatMap { member in
            try DeviceRow.fetchAll(db, sql: """
                SELECT * FROM device WHERE player = ? AND pushToStartToken IS NOT NULL
                AND pushToStartTokenInvalidAt IS NULL ORDER BY id
                """, arguments: [member.player.rawValue]).map { device in
                PushToStartDevice(device: DeviceID(device.id),
                                  recipient: PushToStartRecipient(player: member.player, hero: member.hero, language: device.locale))
            }
        }
    }
}
