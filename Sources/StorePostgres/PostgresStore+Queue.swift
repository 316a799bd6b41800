import Foundation
import PostgresNIO
import PushPolicy
import Store
import Vocabulary

// The steps that queue pushes, each run inside the caller's transaction.
extension PostgresStore {
    /// Inserts one outbox row; it supersedes the pushes still waiting for its target
    /// that the policy marked supersedable. A leave-channel push also marks the
    /// member as leaving: their token is kept until that push is done with.
    func enqueue(_ message: OutboxMessage, adventure: AdventureID?, tick: Int?, at now: Date,
                 _ connection: PostgresConnection) async throws {
        try await connection.query("""
            UPDATE outbox SET state = 'superseded', outcome = \(QueuedPushRules.supersededReason)
            WHERE state = 'pending' AND supersedable
              AND target_kind = \(message.target.kind.rawValue) AND target_id = \(message.target.id)
            """, logger: logger)
        try await connection.query("""
            INSERT INTO outbox (adventure, target_kind, target_id, push_type, topic, priority, expiration, payload, reason,
                                has_alert, is_end, supersedable, tick, state, attempts, next_attempt_at, created_at)
            VALUES (\(adventure?.rawValue), \(message.target.kind.rawValue), \(message.target.id), \(message.pushType.rawValue),
                    \(message.topic.rawValue), \(message.priority.rawValue), \(message.expiration), \(message.payload),
                    \(message.reason), \(message.hasAlert), \(message.isEnd), \(message.supersedable), \(tick), 'pending', 0,
                    \(now), \(now))
            """, logger: logger)
        if message.isEnd, case .pushToTalk(let member) = message.target {
            try await connection.query("""
                UPDATE channel_member SET status = 'leaving', left_at = \(now) WHERE id = \(member.rawValue) AND status = 'joined'
                """, logger: logger)
        }
    }

    /// Tells the given players (nil: everyone) listening on the party's channel to
    /// leave: those the push can reach get it; the others are marked as gone.
    func sendOffChannel(party: PartyID, players: [PlayerID]?, at now: Date,
                        _ leaveChannelPush: (ChannelMember) -> OutboxMessage?, _ connection: PostgresConnection) async throws {
        guard let channel = try await connection.query("SELECT id FROM channel WHERE party = \(party.rawValue)", logger: logger)
            .decodeFirst(String.self) else { return }
        for member in try await listeners(of: ChannelID(channel), connection) where players?.contains(member.player) ?? true {
            if let message = leaveChannelPush(member) {
                try await enqueue(message, adventure: nil, tick: nil, at: now, connection)
            } else {
                try await connection.query("""
                    UPDATE channel_member SET status = 'left', token = NULL, left_at = \(now) WHERE id = \(member.id.rawValue)
                    """, logger: logger)
            }
        }
    }

    /// Members listening (joined, with a valid token), in the order they joined.
    func listeners(of channel: ChannelID, _ connection: PostgresConnection) async throws -> [ChannelMember] {
        try await connection.query("""
            SELECT id, player, status, token, joined_at FROM channel_member
            WHERE channel = \(channel.rawValue) AND status = 'joined' AND token IS NOT NULL AND token_invalid_at IS NULL
            ORDER BY joined_at, id
            """, logger: logger).decodeAll((String, String, String, String?, Date).self).map { id, player, status, token, joinedAt in
            ChannelMember(id: ChannelMemberID(id), channel: channel, player: PlayerID(player),
                          status: ChannelMemberStatus(rawValue: status) ?? .left, token: token.map(PushToken.init(stored:)),
                          joinedAt: joinedAt)
        }
    }
}
