import Foundation
import PostgresNIO
import Store
import Vocabulary

// Several nodes share the running adventures through leases on their rows: a node
// plays only the adventures it holds (`adventure.lease_holder`, until
// `lease_until`, in the database's clock). No leader and no consensus of our own:
// row locks and the fenced tick update are the coordination.
extension PostgresStore {
    public func liveNodes() async throws -> Int {
        try await query("SELECT COUNT(*) FROM node WHERE alive_until > now()", logger: logger).decodeOne(Int.self)
    }

    /// Renews, in one statement, the leases that are past half their time (a tick
    /// stored renews its adventure's lease too, so at a short tick this touches
    /// nothing), and reads what this node holds. Then, if it holds more than its
    /// fair share (another node has joined), gives the excess up for others to take.
    public func renewLeases() async throws -> HeldAdventures {
        try await transaction { [self] connection in
            var held = try await connection.query("""
                WITH renewed AS (
                    UPDATE adventure SET lease_until = now() + make_interval(secs => greatest(\(leaseSeconds), 2 * tick_interval))
                    WHERE status = 'running' AND lease_holder = \(node) AND lease_until > now()
                      AND lease_until < now() + make_interval(secs => greatest(\(leaseSeconds), 2 * tick_interval) / 2)
                    RETURNING id)
                SELECT id FROM adventure WHERE status = 'running' AND lease_holder = \(node) AND lease_until > now() ORDER BY id
                """, logger: logger).decodeAll(String.self)
            let share = try await leaseCounts(connection).share
            if held.count > share {
                let excess = Array(held.suffix(held.count - share))
                held.removeLast(excess.count)
                try await connection.query("""
                    UPDATE adventure SET lease_holder = NULL, lease_until = NULL
                    WHERE id = ANY(\(excess)) AND lease_holder = \(node)
                    """, logger: logger)
            }
            return .only(Set(held.map(AdventureID.init)))
        }
    }

    public func releaseLeases() async throws {
        try await query("""
            UPDATE adventure SET lease_holder = NULL, lease_until = NULL WHERE lease_holder = \(node)
            """, logger: logger)
    }

    /// Takes due adventures that no live node holds (never leased, given up, or
    /// their holder's lease ran out), up to this node's fair share.
    /// `FOR UPDATE SKIP LOCKED`: of nodes taking at once, each adventure goes to
    /// one; the rows another node is taking are passed over, not waited for.
    ///
    /// The fair share counts every running adventure, and the due read runs it
    /// every batch: that count grew with the adventures times the batches. So it
    /// runs only when a due adventure has no holder at all (just started, or
    /// given up: one look through `adventure_by_lease_holder`), and otherwise at
    /// most every tenth of a lease, for those whose holder's lease ran out.
    func takeLeases(dueBy second: Int) async throws {
        let now = ContinuousClock.now
        if let counted = lastLeaseCount.withLockedValue({ $0 }), now - counted < lease / 10 {
            let unheld = try await query("""
                SELECT EXISTS (SELECT 1 FROM adventure WHERE status = 'running' AND lease_holder IS NULL AND next_tick_at <= \(second))
                """, logger: logger).decodeOne(Bool.self)
            guard unheld else { return }
        }
        lastLeaseCount.withLockedValue { $0 = now }
        try await transaction { [self] connection in
            let (share, held) = try await leaseCounts(connection)
            let room = share - held
            guard room > 0 else { return }
            try await connection.query("""
                WITH taken AS (
                    UPDATE adventure SET lease_holder = \(node),
                        lease_until = now() + make_interval(secs => greatest(\(leaseSeconds), 2 * tick_interval))
                    WHERE id IN (
                        SELECT id FROM adventure
                        WHERE status = 'running' AND next_tick_at <= \(second) AND (lease_holder IS NULL OR lease_until <= now())
                        ORDER BY next_tick_at, id LIMIT \(room) FOR UPDATE SKIP LOCKED)
                    RETURNING id)
                INSERT INTO lease_log (adventure, node) SELECT id, \(node) FROM taken
                """, logger: logger)
        }
    }

    /// This node's fair share and how many adventures it holds now, in one read
    /// of the running adventures.
    private func leaseCounts(_ connection: PostgresConnection) async throws -> (share: Int, held: Int) {
        let (held, running, live) = try await connection.query("""
            SELECT COUNT(*) FILTER (WHERE lease_holder = \(node) AND lease_until > now()), COUNT(*),
                   (SELECT COUNT(*) FROM node WHERE alive_until > now())
            FROM adventure WHERE status = 'running'
            """, logger: logger).decodeFirst((Int, Int, Int).self) ?? (0, 0, 1)
        return (Self.fairShare(running: running, live: live), held)
    }

    /// Running adventures ÷ live nodes, rounded up, plus a margin (a tenth, at
    /// least two) so that nodes need not be exactly even to take the last ones.
    private static func fairShare(running: Int, live: Int) -> Int {
        let even = (running + max(1, live) - 1) / max(1, live)
        return even + max(2, even / 10)
    }
}
