import Foundation
import PostgresNIO
import PushPolicy
import Store
import Vocabulary

extension PostgresStore {
    /// Follows the log in the order of the transactions that wrote it (`written_by`,
    /// then the entry's number), never past the oldest transaction still running
    /// when the snapshot was taken that may write here (`commitOrderBarrier`,
    /// as a claim reads the pushes): every transaction before that one has
    /// committed or rolled back, so no entry can appear later behind the cursor.
    /// An entry written by a transaction still open waits, with those after it,
    /// for a later read. The cursor's `batch` is a transaction id.
    public func pushLog(of adventure: AdventureID, after cursor: PushLogCursor, limit: Int) async throws -> PushLogPage {
        try await snapshot { [self] connection in
            // The first statement, so that the snapshot it takes and the barrier
            // it reads are as close as they can be (a transaction of another
            // database ending between the two holds the read back).
            let entries = try await connection.query("""
                WITH \(unescaped: Self.commitOrderBarrier)
                SELECT \(unescaped: Self.pushLogColumns), l.written_by::text, l.id
                FROM push_log l JOIN outbox_message m ON m.id = l.outbox
                WHERE l.adventure_code = (SELECT code FROM adventure WHERE id = \(adventure.rawValue))
                  AND (l.written_by, l.id) > (\(String(cursor.batch))::xid8, \(cursor.entry))
                  AND l.written_by < (SELECT xid FROM barrier)
                ORDER BY l.written_by, l.id LIMIT \(max(0, limit))
                """, logger: logger).decodeAll(
                    (Int64, String, String, String, String, Int, Int?, String?, String?, Int, Date, Int?, String, Data, String, Int64).self)
                .map { outbox, kind, target, token, pushType, priority, status, reason, apnsID, attempts, sentAt, tick, decision, payload,
                       writtenBy, id in
                    guard let batch = UInt64(writtenBy) else { throw StoreError.corrupt("transaction id '\(writtenBy)' in push log") }
                    let columns = (outbox, kind, target, token, pushType, priority, status, reason, apnsID, attempts, sentAt, tick,
                                   decision, payload)
                    return PushLogPage.Entry(cursor: PushLogCursor(batch: batch, entry: id),
                                             entry: try Self.pushLogEntry(columns, of: adventure))
                }
            _ = try await requireAdventure(adventure, lock: "", connection)
            let waitingRows = try await connection.query("""
                SELECT \(unescaped: Self.outboxColumns) FROM \(unescaped: Self.outboxRows)
                WHERE o.state = 'pending' AND o.attempts > 0
                  AND m.adventure_code = (SELECT code FROM adventure WHERE id = \(adventure.rawValue)) ORDER BY o.id
                """, logger: logger).decodeAll(OutboxColumns.self)
            return PushLogPage(entries: entries, cursor: entries.last?.cursor ?? cursor,
                               waitingForRetry: try await self.entries(waitingRows, connection))
        }
    }

    static let pushLogColumns = """
        l.outbox, m.target_kind::text, m.target_id, \(loggedDestination), m.push_type::text, m.priority, l.status, l.reason,
        \(loggedAPNsID), l.attempts, l.sent_at, m.tick, m.reason, m.payload
        """

    typealias PushLogColumns = (Int64, String, String, String, String, Int, Int?, String?, String?, Int, Date, Int?, String, Data)

    static func pushLogEntry(_ row: PushLogColumns, of adventure: AdventureID) throws -> PushLogEntry {
        let (outbox, kind, targetID, token, pushType, storedPriority, status, reason, apnsID, attempts, sentAt, tick, decision, payload) = row
        let priority = try StoredValues.priorityInPushLog(storedPriority)
        let target = try PushTarget(kind: kind, id: targetID)
        return PushLogEntry(outbox: OutboxID(outbox), adventure: adventure, target: target,
                            destination: PushDestination(stored: token, for: target.kind), pushType: try Self.pushType(pushType),
                            priority: priority,
                            status: status, reason: reason, apnsID: apnsID, attempts: attempts, sentAt: sentAt,
                            tick: tick, decision: decision, payload: try StoredPayload.payload(fromStored: payload))
    }

    public func outbox(of adventure: AdventureID) async throws -> [OutboxEntry] {
        try await snapshot { [self] connection in
            _ = try await requireAdventure(adventure, lock: "", connection)
            return try await outboxEntries(of: adventure, connection)
        }
    }

    public func pushLog(of adventure: AdventureID) async throws -> [PushLogEntry] {
        try await snapshot { [self] connection in
            _ = try await requireAdventure(adventure, lock: "", connection)
            return try await connection.query("""
                SELECT \(unescaped: Self.pushLogColumns)
                FROM push_log l JOIN outbox_message m ON m.id = l.outbox
                WHERE l.adventure_code = (SELECT code FROM adventure WHERE id = \(adventure.rawValue)) ORDER BY l.id
                """, logger: logger).decodeAll(PushLogColumns.self).map { try Self.pushLogEntry($0, of: adventure) }
        }
    }

    // MARK: - Reading rows back

    /// An unfinished push is two rows (v11): its message, written once, and its progress.
    static let outboxRows = "outbox o JOIN outbox_message m ON m.id = o.id"

    /// The ids of the adventure bound as `$1`'s pushes: those its ticks queued,
    /// named by their rows of the tick log, and the others (v18); both name it by
    /// its code (v25).
    static let adventurePushIDs = """
        SELECT unnest(pushes) FROM tick_log WHERE adventure_code = (SELECT code FROM adventure WHERE id = $1)
        UNION ALL
        SELECT id FROM outbox_message WHERE adventure_code = (SELECT code FROM adventure WHERE id = $1) AND NOT in_tick_log
        """

    /// A message names its adventure by its code (v25): `entries` reads their ids.
    static let outboxColumns = messageColumns + ", o.state, o.outcome, o.attempts, m.created_at"

    static let messageColumns = """
        m.id, m.adventure_code, m.target_kind::text, m.target_id, m.push_type::text, m.topic_code, m.priority, m.expiration,
        m.payload, m.reason, m.has_alert, m.is_end, m.supersedable, m.tick
        """

    /// Any push of the adventure bound as `$1`, finished or not (v26): while
    /// unfinished its progress row says where it is, or the claim that holds it
    /// (v27), or that it waits for its first claim past the cursor (as
    /// superseded where its claim will supersede it); once finished,
    /// `outbox_end` says how, or, where it does not, the push was sent and its
    /// push log entry holds its claims (one entry a push: an answer is recorded
    /// once). The adventure's entries are read once, through their index by
    /// adventure, and joined to its pushes. A push with none of these reads as no
    /// state, which `entry` refuses.
    static let anyPushRows = """
        outbox_message m LEFT JOIN outbox o ON o.id = m.id LEFT JOIN outbox_end e ON e.id = m.id
        LEFT JOIN (SELECT outbox, claims FROM push_log
                   WHERE adventure_code = (SELECT code FROM adventure WHERE id = $1) AND claims IS NOT NULL) l ON l.outbox = m.id
        LEFT JOIN LATERAL (SELECT true AS held FROM outbox_claim c WHERE m.id = ANY(c.unanswered) LIMIT 1) c ON true
        """

    /// Past the cursor, a push its claim will supersede (looked for only there).
    private static let overtakenPastTheCursor = "CASE WHEN \(pastTheCursor) THEN m.supersedable AND \(newerPushQueued) END"

    static let anyPushColumns = messageColumns + """
        , COALESCE(o.state, e.state, CASE WHEN l.claims IS NOT NULL THEN 'sent' END, CASE WHEN c.held THEN 'sending' END,
                   CASE \(overtakenPastTheCursor) WHEN true THEN 'superseded' WHEN false THEN 'pending' END, ''),
        CASE WHEN o.id IS NOT NULL THEN o.outcome WHEN e.id IS NOT NULL THEN e.outcome
             WHEN l.claims IS NULL AND c.held IS NULL AND \(overtakenPastTheCursor)
             THEN '\(QueuedPushRules.supersededReason.replacingOccurrences(of: "'", with: "''"))' END,
        COALESCE(o.attempts, e.attempts, l.claims, CASE WHEN c.held THEN 1 END, 0), m.created_at
        """

    typealias OutboxColumns = (Int64, Int64?, String, String, String, Int32, Int, Int, Data, String, Bool, Bool, Bool, Int?,
                               String, String?, Int, Date)

    /// The rows' entries, their topics and adventures read from their codes
    /// (`topics`; the adventures' in one statement for all the rows).
    func entries(_ rows: [OutboxColumns], _ connection: PostgresConnection) async throws -> [OutboxEntry] {
        let topics = try await self.topics(Set(rows.map(\.5)), connection)
        let codes = Array(Set(rows.compactMap(\.1)))
        var adventures: [Int64: AdventureID] = [:]
        if !codes.isEmpty {
            for (code, id) in try await connection.query("""
                SELECT code, id FROM adventure WHERE code = ANY(\(codes))
                """, logger: logger).decodeAll((Int64, String).self) { adventures[code] = AdventureID(id) }
        }
        return try rows.map { row in
            guard let topic = topics[row.5] else { throw StoreError.corrupt("topic \(row.5) of outbox row \(row.0)") }
            let adventure = try row.1.map { code in
                guard let id = adventures[code] else { throw StoreError.corrupt("adventure \(code) of outbox row \(row.0)") }
                return id
            }
            return try Self.entry(row, adventure: adventure, topic: topic)
        }
    }

    static func entry(_ row: OutboxColumns, adventure: AdventureID?, topic: Topic) throws -> OutboxEntry {
        let (id, _, kind, target, pushType, _, storedPriority, expiration, payload, reason, hasAlert, isEnd, supersedable,
             tick, state, outcome, attempts, createdAt) = row
        let priority = try StoredValues.priority(storedPriority, ofOutboxRow: id)
        guard !state.isEmpty else { throw StoreError.corrupt("outbox row \(id) has finished with no record of its end") }
        guard let state = OutboxState(rawValue: state) else { throw StoreError.corrupt("state '\(state)' of outbox row \(id)") }
        let message = OutboxMessage(target: try PushTarget(kind: kind, id: target), pushType: try Self.pushType(pushType),
                                    topic: topic, priority: priority, expiration: expiration,
                                    payload: try StoredPayload.payload(fromStored: payload),
                                    reason: reason, hasAlert: hasAlert, isEnd: isEnd, supersedable: supersedable)
        return OutboxEntry(id: OutboxID(id), adventure: adventure, tick: tick, message: message,
                           state: state, outcome: outcome, attempts: attempts, createdAt: createdAt)
    }

    static func pushType(_ stored: String) throws -> PushType { try StoredValues.pushType(stored) }

    func outboxEntries(of adventure: AdventureID, _ connection: PostgresConnection) async throws -> [OutboxEntry] {
        var query = PostgresQuery(unsafeSQL: """
            SELECT \(Self.anyPushColumns) FROM \(Self.anyPushRows) WHERE m.id IN (\(Self.adventurePushIDs)) ORDER BY m.id
            """)
        query.binds.append(adventure.rawValue, context: .default)
        return try await entries(try await connection.query(query, logger: logger).decodeAll(OutboxColumns.self), connection)
    }
}
