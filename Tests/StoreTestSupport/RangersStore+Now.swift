import Foundation
import Game
import PushPolicy
import Store
import Vocabulary

// The store's operations at the current time: what a test that does not care
// when calls. Code that runs the server passes the instant it has (its clock).
extension RangersStore {
    public func createPlayer(name: String) async throws -> (player: Player, apiKey: String) {
        try await createPlayer(name: name, at: Date())
    }

    @discardableResult
    public func createParty(name: String, by player: PlayerID, hero: HeroID) async throws -> Party {
        try await createParty(name: name, by: player, hero: hero, at: Date())
    }

    @discardableResult
    public func joinParty(inviteCode typed: String, player: PlayerID, hero: HeroID) async throws -> PartyMembership {
        try await joinParty(inviteCode: typed, player: player, hero: hero, at: Date())
    }

    @discardableResult
    public func registerLiveActivity(activityID: ActivityID, player: PlayerID, adventure: AdventureID, hero: HeroID?,
                                     token: PushToken, frequentUpdates: Bool, locale: String) async throws -> LiveActivity {
        try await registerLiveActivity(activityID: activityID, player: player, adventure: adventure, hero: hero, token: token,
                                       frequentUpdates: frequentUpdates, locale: locale, at: Date())
    }

    @discardableResult
    public func startAdventure(id: AdventureID = .random(), party: PartyID, setup: AdventureSetup, state: AdventureState,
                               startedAt: Int, contentVersion: String, followCode: FollowCode? = nil,
                               outbox: [OutboxMessage]) async throws -> StoredAdventure {
        try await startAdventure(id: id, party: party, setup: setup, state: state, startedAt: startedAt,
                                 contentVersion: contentVersion, followCode: followCode, outbox: outbox, at: Date())
    }

    @discardableResult
    public func enqueueCommand(_ command: Command, for adventure: AdventureID) async throws -> QueuedCommand {
        try await enqueueCommand(command, for: adventure, receivedAt: Date())
    }

    @discardableResult
    public func recordTicks(_ records: [TickRecord]) async throws -> [Result<StoredTick, StoreError>] {
        try await recordTicks(records, at: Date())
    }

    @discardableResult
    public func endAdventureRequested(_ adventure: AdventureID) async throws -> QueuedCommand {
        try await endAdventureRequested(adventure, at: Date())
    }

    public func leaveParty(_ party: PartyID, player: PlayerID,
                           leaveChannelPush: @escaping @Sendable (ChannelMember) -> OutboxMessage? = { _ in nil }) async throws {
        try await leaveParty(party, player: player, at: Date(), leaveChannelPush: leaveChannelPush)
    }

    @discardableResult
    public func rotateToken(activityID: ActivityID, newToken: PushToken, by player: PlayerID) async throws -> LiveActivity {
        try await rotateToken(activityID: activityID, newToken: newToken, by: player, at: Date())
    }

    @discardableResult
    public func registerPushToStartToken(deviceID: DeviceID, player: PlayerID, token: PushToken,
                                         locale: String) async throws -> Device {
        try await registerPushToStartToken(deviceID: deviceID, player: player, token: token, locale: locale, at: Date())
    }

    @discardableResult
    public func record(_ results: [PushResult]) async throws -> [StoreError?] {
        try await record(results, at: Date())
    }

    public func recordAndClaim(_ results: [PushResult], limit: Int) async throws
        -> (refusals: [StoreError?], claimed: [ClaimedPush]) {
        try await recordAndClaim(results, limit: limit, now: Date())
    }

    public func channel(of party: PartyID) async throws -> Channel {
        try await channel(of: party, at: Date())
    }

    @discardableResult
    public func joinChannel(_ channel: ChannelID, player: PlayerID, token: PushToken) async throws -> ChannelMember {
        try await joinChannel(channel, player: player, token: token, at: Date())
    }

    public func leaveChannel(_ channel: ChannelID, player: PlayerID) async throws {
        try await leaveChannel(channel, player: player, at: Date())
    }

    public func closeChannel(_ channel: ChannelID,
                             leaveChannelPush: @escaping @Sendable (ChannelMember) -> OutboxMessage?) async throws {
        try await closeChannel(channel, at: Date(), leaveChannelPush: leaveChannelPush)
    }

    @discardableResult
    public func recordTransmission(_ new: NewTransmission,
                                   push: @escaping @Sendable (ChannelMember, Transmission) -> OutboxMessage) async throws -> Transmission {
        try await recordTransmission(new, at: Date(), push: push)
    }

    @discardableResult
    public func deleteAudio(recordedBefore cutoff: Date) async throws -> Int {
        try await deleteAudio(recordedBefore: cutoff, at: Date())
    }
}
