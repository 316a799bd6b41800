import Foundation
import Game
import PushPolicy
import Store
import Vocabulary

// Single-step forms of the store's batch operations, for tests. Written over the
// seam, so a test that uses them runs against every engine.
extension RangersStore {
    /// Claims up to `limit` due pushes, recording nothing.
    public func claimOutbox(limit: Int, now: Date = Date()) async throws -> [ClaimedPush] {
        try await recordAndClaim([], limit: limit, now: now).claimed
    }

    /// Records one answer; throws the store's refusal, if any.
    public func record(_ outcome: PushOutcome, for push: ClaimedPush, at now: Date = Date()) async throws {
        if let refusal = try await record([PushResult(push, outcome)], at: now).first, let refusal { throw refusal }
    }

    public func recordDelivered(_ push: ClaimedPush, apnsID: String?, status: Int = 200, attempts: Int = 1,
                                at now: Date = Date()) async throws {
        try await record(.delivered(apnsID: apnsID, status: status, attempts: attempts), for: push, at: now)
    }

    public func recordTokenInvalid(_ push: ClaimedPush, status: Int, reason: String, since: Date?, attempts: Int = 1,
                                   apnsID: String? = nil, at now: Date = Date()) async throws {
        try await record(.tokenInvalid(status: status, reason: reason, since: since, apnsID: apnsID, attempts: attempts),
                         for: push, at: now)
    }

    public func reschedule(_ push: ClaimedPush, at nextAttempt: Date, reason: String) async throws {
        try await record(.retryLater(at: nextAttempt, reason: reason), for: push)
    }

    public func recordRejected(_ push: ClaimedPush, status: Int?, reason: String, attempts: Int = 1,
                               apnsID: String? = nil, at now: Date = Date()) async throws {
        try await record(.rejected(status: status, reason: reason, apnsID: apnsID, attempts: attempts), for: push, at: now)
    }

    /// Stores one tick; throws its refusal. Returns the adventure as stored after it.
    @discardableResult
    public func recordTick(
        adventure: AdventureID, tick: Int, state: AdventureState, events: [GameEvent], appliedCommandIDs: [CommandID],
        outbox: [OutboxMessage], ledgers: [ActivityID: BudgetLedger], at now: Date = Date()
    ) async throws -> StoredAdventure {
        let record = TickRecord(adventure: adventure, tick: tick, state: state, events: events,
                                appliedCommandIDs: appliedCommandIDs, outbox: outbox, ledgers: ledgers)
        _ = try await recordTicks([record], at: now)[0].get()
        return try await self.adventure(adventure)
    }

    /// Commands waiting for the adventure's next tick, in the order they arrived.
    public func pendingCommands(for adventure: AdventureID) async throws -> [QueuedCommand] {
        try await tickInputs(of: adventure).commands
    }

    /// The adventure's activities that can receive a push now: active, with a valid token.
    public func recipients(of adventure: AdventureID) async throws -> [LiveActivityRecipient] {
        try await tickInputs(of: adventure).recipients
    }

    /// The devices of the adventure's roster that a push-to-start can reach.
    public func pushToStartRecipients(of adventure: AdventureID) async throws -> [PushToStartDevice] {
        try await pushToStartDevices(of: try await self.adventure(adventure).setup.party)
    }
}
