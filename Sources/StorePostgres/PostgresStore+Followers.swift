import Foundation
import PostgresNIO
import PushPolicy
import Store
import Vocabulary

// Followers and their broadcast channels on a store several nodes share. What
// holds each invariant:
// - a token follower cap per adventure: the adventure's row FOR UPDATE (follows
//   per token of one adventure take turns);
// - one row per adventure and language: the UNIQUE constraint;
// - one maker per channel: the channel's row FOR UPDATE, and a claim naming its
//   node and attempt that a late answer must still match;
// - the app's channel limit, counted over every node: the advisory lock
//   `channelLimitLock`, held by every transaction that counts and claims.
extension PostgresStore {
    /// An arbitrary constant: the advisory lock under which channels are counted
    /// against the app's limit and claimed to be made.
    static let channelLimitLock: Int64 = 0x6368_616E_6E65_6C73

    /// SQL: whether the node holding a row's claim (`claimed_by`) still beats.
    private static let claimantIsAlive = "EXISTS (SELECT 1 FROM node WHERE node.id = follower_channel.claimed_by AND node.alive_until > now())"

    public func follow(_ request: FollowRequest, at now: Date) async throws -> Following {
        let language = try StoredValueLimits.checkedLocale(request.language)
        if case .pushToStart(let device, _) = request.how {
            try StoredValueLimits.checkDeviceID(device)
        }
        return try await transaction { [self] connection in
            // FOR UPDATE for a follow per token: those of one adventure take turns, so
            // the count of such followers cannot be overtaken. FOR SHARE otherwise: the
            // adventure cannot end before the follow commits.
            let adventure: StoredAdventure
            if case .pushToStart = request.how {
                adventure = try await requireAdventure(request.adventure, lock: "FOR UPDATE", connection)
            } else {
                adventure = try await requireAdventure(request.adventure, lock: "FOR SHARE", connection)
            }
            try await requirePlayer(request.player, lock: "FOR SHARE", connection)
            let isMember = try await connection.query("""
                SELECT 1 FROM membership WHERE party = \(adventure.party.rawValue) AND player = \(request.player.rawValue)
                """, logger: logger).decodeFirst(Int.self) != nil
            try FollowerRules.checkFollow(code: request.code, of: adventure, by: request.player, isMember: isMember)

            var device: DeviceID?
            if case .pushToStart(let id, _) = request.how {
                device = id
                let row = try await connection.query("""
                    SELECT player, push_to_start_token IS NOT NULL AND push_to_start_token_invalid_at IS NULL
                    FROM device WHERE id = \(id.rawValue) FOR SHARE
                    """, logger: logger).decodeFirst((String, Bool).self)
                try FollowerRules.checkPushToStartDevice(id, owner: row.map { PlayerID($0.0) }, validToken: row?.1 ?? false,
                                                         player: request.player)
                let others = try await connection.query("""
                    SELECT COUNT(*) FROM follower WHERE adventure = \(adventure.id.rawValue) AND delivery = 'token'
                    AND status = 'following' AND player <> \(request.player.rawValue)
                    """, logger: logger).decodeOne(Int.self)
                try FollowerRules.checkTokenFollowerRoom(others: others, limit: request.tokenFollowersPerAdventure)
            }
            let delivery: FollowerDelivery = device == nil ? .channel : .token
            let wasFollowing = try await connection.query("""
                SELECT 1 FROM follower WHERE adventure = \(adventure.id.rawValue) AND player = \(request.player.rawValue)
                AND status = 'following'
                """, logger: logger).decodeFirst(Int.self) != nil
            guard let follower = try await connection.query("""
                INSERT INTO follower (adventure, player, delivery, language, device, status, followed_at)
                VALUES (\(adventure.id.rawValue), \(request.player.rawValue), \(delivery.rawValue), \(language),
                        \(device?.rawValue), 'following', \(now))
                ON CONFLICT (adventure, player) DO UPDATE SET delivery = excluded.delivery, language = excluded.language,
                    device = excluded.device, status = 'following', left_at = NULL,
                    followed_at = CASE follower.status WHEN 'following' THEN follower.followed_at ELSE excluded.followed_at END
                RETURNING \(unescaped: Self.followerColumns)
                """, logger: logger).decodeFirst(FollowerColumns.self)
            else { throw StoreError.corrupt("the follow of adventure \(adventure.id) was not stored") }

            switch request.how {
            case .channel:
                let availability = try await channel(for: adventure.id, language: language, request: request, at: now, connection)
                return Following(follower: try Self.follower(follower), adventure: adventure, channel: availability,
                                 wasFollowing: wasFollowing)
            case .pushToStart(let device, let push):
                let wakes = FollowerRules.wakesDevice(activityRegistered: try await connection.query("""
                    SELECT 1 FROM live_activity WHERE adventure = \(adventure.id.rawValue) AND player = \(request.player.rawValue)
                    AND hero_id IS NULL AND status = 'active' LIMIT 1
                    """, logger: logger).decodeFirst(Int.self) != nil)
                if wakes {
                    try await enqueue([QueuedMessage(message: try push(adventure, device), adventure: adventure.id,
                                                     tick: adventure.lastTick)], at: now, connection)
                }
                return Following(follower: try Self.follower(follower), adventure: adventure, queuedPushToStart: wakes,
                                 wasFollowing: wasFollowing)
            }
        }
    }

    private typealias ChannelColumns = (String, String, String?, Bool, Date, Int, Int)
    private static let channelColumns = """
        follower_channel.id, follower_channel.state, follower_channel.apns_channel_id, \(claimantIsAlive),
        follower_channel.next_attempt_at, follower_channel.storage_policy, follower_channel.attempt
        """

    /// The adventure's channel for the language, claimed for the caller to make
    /// when it is to be made now (see `FollowerRules.channelStep`).
    private func channel(for adventure: AdventureID, language: String, request: FollowRequest, at now: Date,
                         _ connection: PostgresConnection) async throws -> ChannelAvailability {
        // An open channel is handed out without a lock: most follows find one.
        if let open = try await connection.query("""
            SELECT id, apns_channel_id FROM follower_channel
            WHERE adventure = \(adventure.rawValue) AND language = \(language) AND state = 'open'
            """, logger: logger).decodeFirst((String, String).self) {
            return .open(FollowerChannelID(open.0), BroadcastChannelID(open.1))
        }
        // The limit's lock, then the row's (every transaction that takes both takes
        // them in this order). Read under them: a follow of the same channel that
        // committed meanwhile has claimed it (READ COMMITTED: this statement sees its commit).
        try await connection.query("SELECT pg_advisory_xact_lock(\(Self.channelLimitLock))", logger: logger)
        let current = try await connection.query("""
            SELECT \(unescaped: Self.channelColumns) FROM follower_channel
            WHERE adventure = \(adventure.rawValue) AND language = \(language) FOR UPDATE
            """, logger: logger).decodeFirst(ChannelColumns.self)
        let state = try current.map { try StoredValues.channelState($0.1) }
        let step = FollowerRules.channelStep(
            state: state, apnsID: current?.2.map { BroadcastChannelID($0) }, claimantIsAlive: current?.3 ?? false,
            nextAttemptAt: current?.4, inUse: try await channelsInUse(connection), limit: request.channelLimit, now: now)
        switch step {
        case .hand(let apnsID):
            return .open(FollowerChannelID(current!.0), apnsID)
        case .beingMade:
            return .beingMade
        case .wait(let retryAt, let limitReached):
            if current == nil {
                try await insertChannel(adventure: adventure, language: language, policy: request.storagePolicy, state: .wanted,
                                        nextAttemptAt: retryAt, note: FollowerRules.channelLimitNote, at: now, connection)
            }
            return .unavailable(retryAt: retryAt, limitReached: limitReached)
        case .claim:
            guard let current else {
                let id = try await insertChannel(adventure: adventure, language: language, policy: request.storagePolicy,
                                                 state: .creating, nextAttemptAt: now + FollowerRules.claimTimeout, note: nil,
                                                 at: now, connection)
                return .create(ChannelCreation(channel: id, adventure: adventure, language: language,
                                               storagePolicy: request.storagePolicy, attempt: 1))
            }
            return .create(try await claim(current, adventure: adventure, language: language, at: now, connection))
        }
    }

    @discardableResult
    private func insertChannel(adventure: AdventureID, language: String, policy: MessageStoragePolicy,
                               state: FollowerChannelState, nextAttemptAt: Date, note: String?, at now: Date,
                               _ connection: PostgresConnection) async throws -> FollowerChannelID {
        let id = FollowerChannelID.random()
        let claimant: String? = state == .creating ? node : nil
        try await connection.query("""
            INSERT INTO follower_channel (id, adventure, language, state, storage_policy, ledger, claimed_by, attempt,
                                          next_attempt_at, note, created_at)
            VALUES (\(id.rawValue), \(adventure.rawValue), \(language), \(state.rawValue), \(policy.rawValue),
                    \(LedgerJSON.text(of: BudgetLedger())), \(claimant), \(claimant == nil ? 0 : 1), \(nextAttemptAt), \(note), \(now))
            """, logger: logger)
        return id
    }

    /// Takes the claim to make the channel `row` for this node, until
    /// `FollowerRules.claimTimeout` from `now`; the caller holds its row lock.
    private func claim(_ row: ChannelColumns, adventure: AdventureID, language: String, at now: Date,
                       _ connection: PostgresConnection) async throws -> ChannelCreation {
        let attempt = row.6 + 1
        let storagePolicy = try StoredValues.storagePolicy(row.5, ofFollowersChannel: row.0)
        try await connection.query("""
            UPDATE follower_channel SET state = 'creating', claimed_by = \(node), attempt = \(attempt), apns_channel_id = NULL,
                deleted_at = NULL, next_attempt_at = \(now + FollowerRules.claimTimeout)
            WHERE id = \(row.0)
            """, logger: logger)
        return ChannelCreation(channel: FollowerChannelID(row.0), adventure: adventure, language: language,
                               storagePolicy: storagePolicy, attempt: attempt)
    }

    /// Channels counted against the app's limit; the caller holds `channelLimitLock`.
    private func channelsInUse(_ connection: PostgresConnection) async throws -> Int {
        try await connection.query("SELECT COUNT(*) FROM follower_channel WHERE state IN ('creating', 'open')",
                                   logger: logger).decodeOne(Int.self)
    }

    public func unfollow(_ adventure: AdventureID, player: PlayerID, at now: Date) async throws {
        try await transaction { [self] connection in
            _ = try await requireAdventure(adventure, lock: "", connection)
            let left = try await connection.query("""
                UPDATE follower SET status = 'left', left_at = \(now)
                WHERE adventure = \(adventure.rawValue) AND player = \(player.rawValue) AND status = 'following'
                RETURNING player
                """, logger: logger).decodeFirst(String.self)
            guard left != nil else { throw StoreError.notFollowing(adventure, player: player) }
            try await connection.query("""
                UPDATE live_activity SET status = 'ended'
                WHERE adventure = \(adventure.rawValue) AND player = \(player.rawValue) AND hero_id IS NULL AND status = 'active'
                """, logger: logger)
        }
    }

    private typealias FollowerColumns = (String, String, String, String, String?, String, Date)
    private static let followerColumns = "adventure, player, delivery, language, device, status, followed_at"

    private static func follower(_ row: FollowerColumns) throws -> Follower {
        let (delivery, status) = try StoredValues.follower(delivery: row.2, status: row.5, player: row.1, adventure: row.0)
        return Follower(adventure: AdventureID(row.0), player: PlayerID(row.1), delivery: delivery, language: row.3,
                        device: row.4.map { DeviceID($0) }, status: status, followedAt: row.6)
    }

    public func followers(of adventure: AdventureID) async throws -> [Follower] {
        try await snapshot { [self] connection in
            _ = try await requireAdventure(adventure, lock: "", connection)
            return try await connection.query("""
                SELECT \(unescaped: Self.followerColumns) FROM follower
                WHERE adventure = \(adventure.rawValue) AND status = 'following' ORDER BY followed_at, player
                """, logger: logger).decodeAll(FollowerColumns.self).map(Self.follower)
        }
    }

    private typealias StoredChannelColumns = (String, String, String, String, String?, Int, String, String?)
    private static let storedChannelColumns = "id, adventure, language, state, apns_channel_id, storage_policy, ledger, note"

    private static func followerChannel(_ row: StoredChannelColumns) throws -> FollowerChannel {
        let storagePolicy = try StoredValues.storagePolicy(row.5, ofFollowersChannel: row.0)
        return FollowerChannel(id: FollowerChannelID(row.0), adventure: AdventureID(row.1), language: row.2,
                               state: try StoredValues.channelState(row.3), apnsID: row.4.map { BroadcastChannelID($0) },
                               storagePolicy: storagePolicy, ledger: try ledger(row.6), note: row.7)
    }

    public func followerChannels(of adventure: AdventureID) async throws -> [FollowerChannel] {
        try await snapshot { [self] connection in
            _ = try await requireAdventure(adventure, lock: "", connection)
            return try await connection.query("""
                SELECT \(unescaped: Self.storedChannelColumns) FROM follower_channel
                WHERE adventure = \(adventure.rawValue) ORDER BY language
                """, logger: logger).decodeAll(StoredChannelColumns.self).map(Self.followerChannel)
        }
    }

    // MARK: - Making and deleting channels

    public func takeChannelCreations(limit: Int, channelLimit: Int, at now: Date) async throws -> [ChannelCreation] {
        guard limit > 0 else { return [] }
        return try await transaction { [self] connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.channelLimitLock))", logger: logger)
            // SKIP LOCKED: a channel a follow is claiming at this moment is passed over.
            let candidates = try await connection.query("""
                SELECT \(unescaped: Self.channelColumns), follower_channel.adventure, follower_channel.language,
                       EXISTS (SELECT 1 FROM follower f WHERE f.adventure = follower_channel.adventure
                               AND f.language = follower_channel.language AND f.delivery = 'channel' AND f.status = 'following')
                FROM follower_channel JOIN adventure a ON a.id = follower_channel.adventure
                WHERE follower_channel.state IN ('wanted', 'creating') AND a.status = 'running'
                  AND (follower_channel.next_attempt_at <= \(now)
                       OR (follower_channel.state = 'creating' AND NOT \(unescaped: Self.claimantIsAlive)))
                ORDER BY follower_channel.next_attempt_at, follower_channel.id
                FOR UPDATE OF follower_channel SKIP LOCKED
                """, logger: logger).decodeAll((String, String, String?, Bool, Date, Int, Int, String, String, Bool).self)
            var inUse = try await channelsInUse(connection)
            var taken: [ChannelCreation] = []
            for candidate in candidates where taken.count < limit {
                // A claim of a node that still beats is that node's to finish, until it runs out.
                let creation = FollowerRules.creation(
                    state: try StoredValues.channelState(candidate.1), claimantIsAlive: candidate.3, nextAttemptAt: candidate.4,
                    isWanted: candidate.9, inUse: inUse, limit: channelLimit, now: now)
                inUse = creation.inUse
                switch creation.step {
                case .leave:
                    continue
                case .drop:
                    try await connection.query("""
                        UPDATE follower_channel SET state = 'deleted', claimed_by = NULL, deleted_at = \(now),
                            note = \(FollowerRules.unwantedNote) WHERE id = \(candidate.0)
                        """, logger: logger)
                case .claim:
                    let row = (candidate.0, candidate.1, candidate.2, candidate.3, candidate.4, candidate.5, candidate.6)
                    taken.append(try await claim(row, adventure: AdventureID(candidate.7), language: candidate.8, at: now, connection))
                }
            }
            return taken
        }
    }

    public func channelCreated(_ creation: ChannelCreation, as apnsID: BroadcastChannelID, at now: Date) async throws -> FollowerChannel {
        try FollowerRules.checkMadeChannel(apnsID)
        return try await transaction { [self] connection in
            // Only while this claim holds: one taken over (this node was taken for
            // stopped) has another maker now, and this channel is the caller's to delete.
            guard let row = try await connection.query("""
                UPDATE follower_channel SET state = 'open', apns_channel_id = \(apnsID.rawValue), claimed_by = NULL,
                    opened_at = \(now), note = NULL
                WHERE id = \(creation.channel.rawValue) AND state = 'creating' AND claimed_by = \(node)
                  AND attempt = \(creation.attempt)
                RETURNING \(unescaped: Self.storedChannelColumns)
                """, logger: logger).decodeFirst(StoredChannelColumns.self)
            else { throw FollowerRules.claimLost(creation) }
            try await connection.query("""
                UPDATE adventure SET has_follower_channels = true WHERE id = \(creation.adventure.rawValue) AND NOT has_follower_channels
                """, logger: logger)
            return try Self.followerChannel(row)
        }
    }

    public func channelNotCreated(_ creation: ChannelCreation, retryAt: Date, reason: String, at now: Date) async throws {
        let changed = try await query("""
            UPDATE follower_channel SET state = 'wanted', claimed_by = NULL, next_attempt_at = \(retryAt), note = \(reason)
            WHERE id = \(creation.channel.rawValue) AND state = 'creating' AND claimed_by = \(node) AND attempt = \(creation.attempt)
            RETURNING id
            """, logger: logger).decodeFirst(String.self)
        guard changed != nil else {
            throw FollowerRules.claimLost(creation)
        }
    }

    public func channelsToDelete(endedBy: Int, limit: Int, at now: Date) async throws -> [FollowerChannel] {
        try await transaction { [self] connection in
            // Never made, and now never needed. A claim of a node that stopped may
            // have made one on APNs: no node knows its id, so the sweep deletes it.
            try await connection.query("""
                UPDATE follower_channel SET state = 'deleted', claimed_by = NULL, deleted_at = \(now),
                    note = 'never made; the adventure ended'
                WHERE (state = 'wanted' OR (state = 'creating' AND NOT \(unescaped: Self.claimantIsAlive)))
                  AND adventure IN (SELECT id FROM adventure WHERE status <> 'running')
                """, logger: logger)
            return try await connection.query("""
                SELECT c.id, c.adventure, c.language, c.state, c.apns_channel_id, c.storage_policy, c.ledger, c.note
                FROM follower_channel c JOIN adventure a ON a.id = c.adventure
                WHERE c.state = 'open' AND a.status <> 'running' AND a.ended_at <= \(endedBy)
                  AND NOT EXISTS (SELECT 1 FROM outbox_message m LEFT JOIN outbox o ON o.id = m.id
                                  WHERE m.target_kind = 'followerChannel' AND m.target_id = c.id
                                  AND (o.state IN ('pending', 'sending') OR (\(unescaped: Self.waitingForItsFirstClaim))
                                       OR EXISTS (SELECT 1 FROM outbox_claim k WHERE m.id = ANY(k.unanswered))))
                ORDER BY a.ended_at, c.id LIMIT \(limit)
                """, logger: logger).decodeAll(StoredChannelColumns.self).map(Self.followerChannel)
        }
    }

    public func channelDeleted(_ channel: FollowerChannelID, note: String, at now: Date) async throws {
        try await query("""
            UPDATE follower_channel SET state = 'deleted', claimed_by = NULL, deleted_at = \(now), note = \(note)
            WHERE id = \(channel.rawValue) AND state = 'open'
            """, logger: logger)
    }

    public func knownChannels() async throws -> KnownChannels {
        try await snapshot { [self] connection in
            let open = try await connection.query("SELECT apns_channel_id FROM follower_channel WHERE state = 'open'",
                                                  logger: logger).decodeAll(String.self)
            let creating = try await connection.query("SELECT COUNT(*) FROM follower_channel WHERE state = 'creating'",
                                                      logger: logger).decodeOne(Int.self)
            return KnownChannels(apnsIDs: Set(open.map { BroadcastChannelID($0) }), creationsInFlight: creating)
        }
    }

    /// APNs no longer has the channel a broadcast went to: while its adventure runs
    /// it is made again (followers asking again get the new id); after, it is done
    /// with. What was waiting for it goes nowhere.
    func channelGone(_ channel: FollowerChannelID, apnsID: BroadcastChannelID, reason: String, at now: Date,
                     _ connection: PostgresConnection) async throws {
        try await connection.query("""
            UPDATE follower_channel SET
                state = CASE WHEN (SELECT status FROM adventure WHERE id = follower_channel.adventure) = 'running'
                             THEN 'wanted' ELSE 'deleted' END,
                deleted_at = \(now), next_attempt_at = \(now), note = \("gone from APNs: \(reason)")
            WHERE id = \(channel.rawValue) AND state = 'open' AND apns_channel_id = \(apnsID.rawValue)
            """, logger: logger)
        try await endPending(to: [.followerChannel(channel)], supersedableOnly: false,
                             as: .dropped, "its channel is gone from APNs: \(reason)", connection)
    }
}
