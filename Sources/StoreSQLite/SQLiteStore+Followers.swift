import Foundation
import GRDB
import PushPolicy
import Store
import Vocabulary

// Followers and their broadcast channels. One process writes a SQLite file, so
// each operation's checks and writes happen in its one write transaction, and a
// claim to make a channel held by any other store was left by a process that
// stopped.
extension SQLiteStore {
    public func follow(_ request: FollowRequest, at now: Date) async throws -> Following {
        let language = try StoredValueLimits.checkedLocale(request.language)
        if case .pushToStart(let device, _) = request.how {
            try StoredValueLimits.checkDeviceID(device)
        }
        return try await write { [claimant] db in
            let adventure = try Self.requireAdventure(request.adventure, db).value()
            _ = try Self.requirePlayer(request.player, db)
            let isMember = try Bool.fetchOne(db, sql: "SELECT 1 FROM membership WHERE party = ? AND player = ?",
                                             arguments: [adventure.party.rawValue, request.player.rawValue]) ?? false
            try FollowerRules.checkFollow(code: request.code, of: adventure, by: request.player, isMember: isMember)

            let delivery: FollowerDelivery
            var device: DeviceID?
            switch request.how {
            case .channel:
                delivery = .channel
            case .pushToStart(let id, _):
                delivery = .token
                device = id
                let row = try DeviceRow.fetchOne(db, key: id.rawValue)
                try FollowerRules.checkPushToStartDevice(id, owner: row.map { PlayerID($0.player) },
                                                         validToken: row?.value.pushToStartToken != nil, player: request.player)
                let others = try Int.fetchOne(db, sql: """
                    SELECT COUNT(*) FROM follower WHERE adventure = ? AND delivery = 'token' AND status = 'following' AND player != ?
                    """, arguments: [adventure.id.rawValue, request.player.rawValue]) ?? 0
                try FollowerRules.checkTokenFollowerRoom(others: others, limit: request.tokenFollowersPerAdventure)
            }
            let wasFollowing = try Bool.fetchOne(db, sql: """
                SELECT 1 FROM follower WHERE adventure = ? AND player = ? AND status = 'following'
                """, arguments: [adventure.id.rawValue, request.player.rawValue]) ?? false
            try db.execute(sql: """
                INSERT INTO follower (adventure, player, delivery, language, device, status, followedAt)
                VALUES (?, ?, ?, ?, ?, 'following', ?)
                ON CONFLICT (adventure, player) DO UPDATE SET delivery = excluded.delivery, language = excluded.language,
                    device = excluded.device, status = 'following', leftAt = NULL,
                    followedAt = CASE follower.status WHEN 'following' THEN follower.followedAt ELSE excluded.followedAt END
                """, arguments: [adventure.id.rawValue, request.player.rawValue, delivery.rawValue, language, device?.rawValue, now])
            let follower = try Self.follower(of: adventure.id, player: request.player, db)!

            switch request.how {
            case .channel:
                let availability = try Self.channel(for: adventure.id, language: language, request: request,
                                                    claimant: claimant, at: now, db)
                return Following(follower: follower, adventure: adventure, channel: availability, wasFollowing: wasFollowing)
            case .pushToStart(let device, let push):
                let wakes = FollowerRules.wakesDevice(activityRegistered: try Bool.fetchOne(db, sql: """
                    SELECT 1 FROM liveActivity WHERE adventure = ? AND player = ? AND heroID IS NULL AND status = 'active'
                    """, arguments: [adventure.id.rawValue, request.player.rawValue]) ?? false)
                if wakes {
                    try Self.enqueue(try push(adventure, device), adventure: adventure.id, tick: adventure.lastTick,
                                     at: now.databaseValue, db)
                }
                return Following(follower: follower, adventure: adventure, queuedPushToStart: wakes, wasFollowing: wasFollowing)
            }
        }
    }

    /// The adventure's channel for the language, claimed for the caller to make
    /// when it is to be made now (see `FollowerRules.channelStep`).
    private static func channel(for adventure: AdventureID, language: String, request: FollowRequest, claimant: String,
                                at now: Date, _ db: Database) throws -> ChannelAvailability {
        let row = try Row.fetchOne(db, sql: """
            SELECT id, state, apnsChannelID, claimedBy, nextAttemptAt, storagePolicy, attempt FROM followerChannel
            WHERE adventure = ? AND language = ?
            """, arguments: [adventure.rawValue, language])
        let state = try row.map { try StoredValues.channelState($0[1]) }
        let step = FollowerRules.channelStep(
            state: state, apnsID: (row?[2] as String?).map { BroadcastChannelID($0) }, claimantIsAlive: (row?[3] as String?) == claimant,
            nextAttemptAt: row?[4], inUse: try channelsInUse(db), limit: request.channelLimit, now: now)
        switch step {
        case .hand(let apnsID):
            return .open(FollowerChannelID(row![0] as String), apnsID)
        case .beingMade:
            return .beingMade
        case .wait(let retryAt, let limitReached):
            if row == nil {
                try insertChannel(adventure: adventure, language: language, policy: request.storagePolicy, state: .wanted,
                                  claimant: nil, nextAttemptAt: retryAt, note: FollowerRules.channelLimitNote, at: now, db)
            }
            return .unavailable(retryAt: retryAt, limitReached: limitReached)
        case .claim:
            guard let row else {
                let id = try insertChannel(adventure: adventure, language: language, policy: request.storagePolicy,
                                           state: .creating, claimant: claimant,
                                           nextAttemptAt: now + FollowerRules.claimTimeout, note: nil, at: now, db)
                return .create(ChannelCreation(channel: id, adventure: adventure, language: language,
                                               storagePolicy: request.storagePolicy, attempt: 1))
            }
            return .create(try claim(row, by: claimant, adventure: adventure, language: language, at: now, db))
        }
    }

    @discardableResult
    private static func insertChannel(adventure: AdventureID, language: String, policy: MessageStoragePolicy,
                                      state: FollowerChannelState, claimant: String?, nextAttemptAt: Date, note: String?,
                                      at now: Date, _ db: Database) throws -> FollowerChannelID {
        let id = FollowerChannelID.random()
        try db.execute(sql: """
            INSERT INTO followerChannel (id, adventure, language, state, storagePolicy, ledger, claimedBy, attempt,
                                         nextAttemptAt, note, createdAt)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [id.rawValue, adventure.rawValue, language, state.rawValue, policy.rawValue,
                             LedgerJSON.text(of: BudgetLedger()), claimant, claimant == nil ? 0 : 1, nextAttemptAt, note, now])
        return id
    }

    /// Takes the claim to make the channel `row` (id, state, …, storagePolicy, attempt) for `claimant`,
    /// until `FollowerRules.claimTimeout` from `now`.
    private static func claim(_ row: Row, by claimant: String, adventure: AdventureID, language: String,
                              at now: Date, _ db: Database) throws -> ChannelCreation {
        let id = FollowerChannelID(row[0] as String)
        let attempt = (row[6] as Int) + 1
        let storagePolicy = try StoredValues.storagePolicy(row[5], ofFollowersChannel: id.rawValue)
        try db.execute(sql: """
            UPDATE followerChannel SET state = 'creating', claimedBy = ?, attempt = ?, apnsChannelID = NULL, deletedAt = NULL,
                nextAttemptAt = ?
            WHERE id = ?
            """, arguments: [claimant, attempt, now + FollowerRules.claimTimeout, id.rawValue])
        return ChannelCreation(channel: id, adventure: adventure, language: language, storagePolicy: storagePolicy, attempt: attempt)
    }

    private static func channelsInUse(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM followerChannel WHERE state = 'creating' OR state = 'open'") ?? 0
    }

    public func unfollow(_ adventure: AdventureID, player: PlayerID, at now: Date) async throws {
        try await write { db in
            _ = try Self.requireAdventure(adventure, db)
            try db.execute(sql: """
                UPDATE follower SET status = 'left', leftAt = ? WHERE adventure = ? AND player = ? AND status = 'following'
                """, arguments: [now, adventure.rawValue, player.rawValue])
            guard db.changedRows else { throw StoreError.notFollowing(adventure, player: player) }
            try db.execute(sql: """
                UPDATE liveActivity SET status = 'ended' WHERE adventure = ? AND player = ? AND heroID IS NULL AND status = 'active'
                """, arguments: [adventure.rawValue, player.rawValue])
        }
    }

    public func followers(of adventure: AdventureID) async throws -> [Follower] {
        try await read { db in
            _ = try Self.requireAdventure(adventure, db)
            return try Row.fetchAll(db, sql: """
                SELECT adventure, player, delivery, language, device, status, followedAt FROM follower
                WHERE adventure = ? AND status = 'following' ORDER BY followedAt, player
                """, arguments: [adventure.rawValue]).map(Self.follower)
        }
    }

    private static func follower(of adventure: AdventureID, player: PlayerID, _ db: Database) throws -> Follower? {
        try Row.fetchOne(db, sql: """
            SELECT adventure, player, delivery, language, device, status, followedAt FROM follower WHERE adventure = ? AND player = ?
            """, arguments: [adventure.rawValue, player.rawValue]).map(Self.follower)
    }

    private static func follower(_ row: Row) throws -> Follower {
        let (delivery, status) = try StoredValues.follower(delivery: row[2], status: row[5], player: row[1], adventure: row[0])
        return Follower(adventure: AdventureID(row[0] as String), player: PlayerID(row[1] as String), delivery: delivery,
                        language: row[3], device: (row[4] as String?).map(DeviceID.init), status: status, followedAt: row[6])
    }

    public func followerChannels(of adventure: AdventureID) async throws -> [FollowerChannel] {
        try await read { db in
            _ = try Self.requireAdventure(adventure, db)
            return try Row.fetchAll(db, sql: """
                SELECT id, adventure, language, state, apnsChannelID, storagePolicy, ledger, note FROM followerChannel
                WHERE adventure = ? ORDER BY language
                """, arguments: [adventure.rawValue]).map(Self.followerChannel)
        }
    }

    private static func followerChannel(_ row: Row) throws -> FollowerChannel {
        let storagePolicy = try StoredValues.storagePolicy(row[5], ofFollowersChannel: row[0])
        return FollowerChannel(id: FollowerChannelID(row[0] as String), adventure: AdventureID(row[1] as String),
                               language: row[2], state: try StoredValues.channelState(row[3]),
                               apnsID: (row[4] as String?).map { BroadcastChannelID($0) }, storagePolicy: storagePolicy,
                               ledger: try ledger(row[6]), note: row[7])
    }

    // MARK: - Making and deleting channels

    public func takeChannelCreations(limit: Int, channelLimit: Int, at now: Date) async throws -> [ChannelCreation] {
        guard limit > 0 else { return [] }
        return try await write { [claimant] db in
            let candidates = try Row.fetchAll(db, sql: """
                SELECT c.id, c.state, c.apnsChannelID, c.claimedBy, c.nextAttemptAt, c.storagePolicy, c.attempt, c.adventure,
                       c.language, EXISTS (SELECT 1 FROM follower f WHERE f.adventure = c.adventure AND f.language = c.language
                                           AND f.delivery = 'channel' AND f.status = 'following')
                FROM followerChannel c INDEXED BY followerChannel_unmade JOIN adventure a ON a.id = c.adventure
                WHERE (c.state = 'wanted' OR c.state = 'creating') AND a.status = 'running'
                  AND (c.nextAttemptAt <= ? OR (c.state = 'creating' AND c.claimedBy != ?))
                ORDER BY c.nextAttemptAt, c.id
                """, arguments: [now, claimant])
            var inUse = try Self.channelsInUse(db)
            var taken: [ChannelCreation] = []
            for row in candidates where taken.count < limit {
                // The store that holds a claim on this file is this one: any other stopped.
                let creation = FollowerRules.creation(
                    state: try StoredValues.channelState(row[1]), claimantIsAlive: (row[3] as String?) == claimant,
                    nextAttemptAt: row[4], isWanted: row[9], inUse: inUse, limit: channelLimit, now: now)
                inUse = creation.inUse
                switch creation.step {
                case .leave:
                    continue
                case .drop:
                    try db.execute(sql: """
                        UPDATE followerChannel SET state = 'deleted', claimedBy = NULL, deletedAt = ?, note = ? WHERE id = ?
                        """, arguments: [now, FollowerRules.unwantedNote, row[0] as String])
                case .claim:
                    taken.append(try Self.claim(row, by: claimant, adventure: AdventureID(row[7] as String), language: row[8],
                                                at: now, db))
                }
            }
            return taken
        }
    }

    public func channelCreated(_ creation: ChannelCreation, as apnsID: BroadcastChannelID, at now: Date) async throws -> FollowerChannel {
        try FollowerRules.checkMadeChannel(apnsID)
        return try await write { [claimant] db in
            try db.execute(sql: """
                UPDATE followerChannel SET state = 'open', apnsChannelID = ?, claimedBy = NULL, openedAt = ?, note = NULL
                WHERE id = ? AND state = 'creating' AND claimedBy = ? AND attempt = ?
                """, arguments: [apnsID.rawValue, now, creation.channel.rawValue, claimant, creation.attempt])
            guard db.changedRows else {
                throw FollowerRules.claimLost(creation)
            }
            try db.execute(sql: "UPDATE adventure SET hasFollowerChannels = 1 WHERE id = ?", arguments: [creation.adventure.rawValue])
            return try Self.followerChannel(Row.fetchOne(db, sql: """
                SELECT id, adventure, language, state, apnsChannelID, storagePolicy, ledger, note FROM followerChannel WHERE id = ?
                """, arguments: [creation.channel.rawValue])!)
        }
    }

    public func channelNotCreated(_ creation: ChannelCreation, retryAt: Date, reason: String, at now: Date) async throws {
        try await write { [claimant] db in
            try db.execute(sql: """
                UPDATE followerChannel SET state = 'wanted', claimedBy = NULL, nextAttemptAt = ?, note = ?
                WHERE id = ? AND state = 'creating' AND claimedBy = ? AND attempt = ?
                """, arguments: [retryAt, reason, creation.channel.rawValue, claimant, creation.attempt])
            guard db.changedRows else {
                throw FollowerRules.claimLost(creation)
            }
        }
    }

    public func channelsToDelete(endedBy: Int, limit: Int, at now: Date) async throws -> [FollowerChannel] {
        try await write { [claimant] db in
            // Never made, and now never needed. A claim left by a stopped process may
            // have made one on APNs: no store knows its id, so the sweep deletes it.
            try db.execute(sql: """
                UPDATE followerChannel SET state = 'deleted', claimedBy = NULL, deletedAt = ?,
                    note = 'never made; the adventure ended'
                WHERE (state = 'wanted' OR (state = 'creating' AND claimedBy != ?))
                  AND adventure IN (SELECT id FROM adventure WHERE status != 'running')
                """, arguments: [now, claimant])
            return try Row.fetchAll(db, sql: Self.channelsToDeleteSQL, arguments: [endedBy, limit]).map(Self.followerChannel)
        }
    }

    /// Open channels of adventures ended by then, with no push to them waiting or
    /// being sent: looked for among the open pushes only, through their indexes
    /// (the messages have no index by target since v13).
    static let channelsToDeleteSQL = """
        SELECT c.id, c.adventure, c.language, c.state, c.apnsChannelID, c.storagePolicy, c.ledger, c.note
        FROM followerChannel c INDEXED BY followerChannel_open JOIN adventure a ON a.id = c.adventure
        WHERE c.state = 'open' AND a.status != 'running' AND a.endedAt <= ?
          AND NOT EXISTS (SELECT 1 FROM outbox o INDEXED BY outbox_pending
                          WHERE o.state = 'pending' AND o.targetKind = 'followerChannel' AND o.targetID = c.id)
          AND NOT EXISTS (SELECT 1 FROM outbox o INDEXED BY outbox_sending
                          WHERE o.state = 'sending' AND o.targetKind = 'followerChannel' AND o.targetID = c.id)
        ORDER BY a.endedAt, c.id LIMIT ?
        """

    public func channelDeleted(_ channel: FollowerChannelID, note: String, at now: Date) async throws {
        try await write { db in
            try db.execute(sql: """
                UPDATE followerChannel SET state = 'deleted', claimedBy = NULL, deletedAt = ?, note = ? WHERE id = ? AND state = 'open'
                """, arguments: [now, note, channel.rawValue])
        }
    }

    public func knownChannels() async throws -> KnownChannels {
        try await read { db in
            KnownChannels(
                apnsIDs: Set(try String.fetchAll(db, sql: "SELECT apnsChannelID FROM followerChannel WHERE state = 'open'")
                    .map { BroadcastChannelID($0) }),
                creationsInFlight: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM followerChannel WHERE state = 'creating'") ?? 0)
        }
    }

    /// APNs no longer has the channel a broadcast went to: while its adventure runs
    /// it is made again (followers asking again get the new id); after, it is done
    /// with. What was waiting for it goes nowhere.
    static func channelGone(_ channel: FollowerChannelID, apnsID: BroadcastChannelID, reason: String, at now: Date,
                            _ db: Database) throws {
        try db.execute(sql: """
            UPDATE followerChannel SET
                state = CASE WHEN (SELECT status FROM adventure WHERE id = followerChannel.adventure) = 'running'
                             THEN 'wanted' ELSE 'deleted' END,
                deletedAt = ?, nextAttemptAt = ?, note = ?
            WHERE id = ? AND state = 'open' AND apnsChannelID = ?
            """, arguments: [now, now, "gone from APNs: \(reason)", channel.rawValue, apnsID.rawValue])
        try db.execute(sql: """
            UPDATE outbox SET state = 'dropped', outcome = ? WHERE state = 'pending' AND targetKind = 'followerChannel' AND targetID = ?
            """, arguments: ["its channel is gone from APNs: \(reason)", channel.rawValue])
    }
}
