import Foundation
import Vocabulary

/// What both engines decide the same way when a player follows an adventure
/// and when a channel is to be made: each engine reads the rows (under its own
/// locks), this says what they mean.
public enum FollowerRules {
    /// Seconds before a follower refused for the app's channel limit is told to
    /// ask again: channels are deleted as adventures end, a few minutes apart.
    public static let channelLimitRetry: TimeInterval = 60
    /// How long a claim to make a channel holds however alive its maker: far more
    /// than a make takes (one request to APNs, one write). A maker stuck past it
    /// (its store write failed, say) has its claim taken over, and its late answer
    /// is refused like any taken-over claim's.
    public static let claimTimeout: TimeInterval = 120

    /// A follow of `adventure` with the code the player typed, by `player`, who
    /// is in its party when a member of it now (`isMember`) or in its roster.
    public static func checkFollow(code typed: String, of adventure: StoredAdventure, by player: PlayerID,
                                   isMember: Bool) throws(StoreError) {
        let playerIsInParty = isMember || adventure.setup.party.contains { $0.player == player }
        guard let code = adventure.followCode else {
            throw .forbidden("adventure \(adventure.id) is private: only its party follows it")
        }
        // Constant time, as for keys: the code is what keeps a followable adventure's
        // watchers to those it was shared with.
        guard let given = FollowCode(typed: typed),
              constantTimeEqual(expected: code.rawValue.utf8, given: given.rawValue.utf8)
        else { throw .forbidden("that is not adventure \(adventure.id)'s follow code") }
        guard adventure.status == .running else {
            throw .conflict("adventure \(adventure.id) has ended (\(adventure.status.rawValue)); it can no longer be followed")
        }
        guard !playerIsInParty else {
            throw .conflict("you are in the party of adventure \(adventure.id): members get their own pushes, not a follower's")
        }
    }

    /// Room for one more follower per token, given how many others the adventure has.
    public static func checkTokenFollowerRoom(others: Int, limit: Int) throws(StoreError) {
        guard others < limit else {
            throw .conflict("adventure \(limit == 0 ? "takes no followers without broadcast channels" : "has \(others) followers without broadcast channels, the most it takes"); "
                + "an app on iOS 18 follows on a channel, which has no such limit")
        }
    }

    /// The device a per-token follower is woken on: the player's, with a valid push-to-start token.
    public static func checkPushToStartDevice(_ device: DeviceID, owner: PlayerID?, validToken: Bool,
                                              player: PlayerID) throws(StoreError) {
        guard let owner else { throw .notFound("device", id: device.rawValue) }
        guard owner == player else { throw .deviceOfAnotherPlayer(device) }
        guard validToken else {
            throw .conflict("device \(device) has no valid push-to-start token; register one (PUT /v1/devices/\(device)/push-to-start-token) first")
        }
    }

    /// The channel id APNs answered a make with, as the store keeps it.
    public static func checkMadeChannel(_ apnsID: BroadcastChannelID) throws(StoreError) {
        guard apnsID.isWellFormed else { throw .invalid(InvalidBroadcastChannelID(text: apnsID.rawValue).description) }
    }

    /// A make's answer whose claim no longer holds: taken over by another maker,
    /// or run out.
    public static func claimLost(_ creation: ChannelCreation) -> StoreError {
        .conflict("followers' channel \(creation.channel) is no longer being made by this claim")
    }

    /// Whether a follower who asked for a channel, and named a device, follows
    /// per token instead while no channel can be had. Yes while APNs refuses or
    /// fails to make one (an app without the broadcast capability, a wrong key,
    /// an outage): the follower sees the adventure now rather than maybe never.
    /// Not at the app's channel limit: a server there carries thousands of
    /// followed adventures, and a push per follower would multiply its load
    /// where it is highest.
    public static func fallsBackToToken(limitReached: Bool) -> Bool { !limitReached }

    /// Why a channel waits for the keeper rather than being made at a follow.
    public static let channelLimitNote = "the app's channel limit is reached"

    /// Whether a follow per token wakes the device with a push-to-start: until the
    /// follower's activity has registered its token, each follow wakes it again,
    /// as the last push-to-start may not have arrived.
    public static func wakesDevice(activityRegistered: Bool) -> Bool { !activityRegistered }

    /// What to do with an adventure's channel for a language when a follower asks for it.
    public enum ChannelStep: Hashable, Sendable {
        /// It is open on APNs: hand out its id.
        case hand(BroadcastChannelID)
        /// Claim it for the caller to make now (inserting its row if there is none).
        case claim
        /// Someone holds the claim to make it.
        case beingMade
        /// Not before `retryAt` (the row, or a new `wanted` one, waits for the keeper).
        case wait(retryAt: Date, limitReached: Bool)
    }

    /// `state` is nil when the adventure has no channel for the language yet;
    /// `claimantIsAlive` says whether the process holding a `creating` claim is
    /// still running, and `nextAttemptAt` is when that claim runs out; `inUse` counts every channel of the app that counts against
    /// `limit` (see `FollowerChannelState.countsAgainstLimit`), this one included.
    public static func channelStep(state: FollowerChannelState?, apnsID: BroadcastChannelID?, claimantIsAlive: Bool,
                                   nextAttemptAt: Date?, inUse: Int, limit: Int, now: Date) -> ChannelStep {
        let hasRoom = inUse < limit
        switch state {
        case .open?:
            if let apnsID { return .hand(apnsID) }
            return hasRoom ? .claim : .wait(retryAt: now + channelLimitRetry, limitReached: true)
        case .creating?:
            // A stopped maker's claim counts already: taking it over adds no channel.
            let held = claimantIsAlive && (nextAttemptAt.map { $0 > now } ?? true)
            return held ? .beingMade : .claim
        case .wanted?, .deleted?, nil:
            if let nextAttemptAt, nextAttemptAt > now, state == .wanted {
                return .wait(retryAt: nextAttemptAt, limitReached: !hasRoom)
            }
            return hasRoom ? .claim : .wait(retryAt: now + channelLimitRetry, limitReached: true)
        }
    }

    /// Why a channel the keeper would have made was dropped instead.
    public static let unwantedNote = "never made: no follower wants it any more"

    /// What the keeper does with a channel waiting to be made (`wanted`, or
    /// `creating` under a claim that may have lapsed).
    public enum Creation: Hashable, Sendable {
        /// Not now: another maker's claim holds, or the app's limit is reached.
        case leave
        /// No follower wants it any more: deleted, never made.
        case drop
        /// Claimed for the keeper to make now.
        case claim
    }

    /// `claimantIsAlive` says whether the process holding a `creating` claim still
    /// runs, `nextAttemptAt` when the claim runs out; `isWanted` whether a follower
    /// still follows on it; `inUse` counts the app's channels against `limit`.
    /// Returns the step and the count once it is taken: a lapsed claim taken over
    /// counts already, a dropped one no longer does.
    public static func creation(state: FollowerChannelState, claimantIsAlive: Bool, nextAttemptAt: Date, isWanted: Bool,
                                inUse: Int, limit: Int, now: Date) -> (step: Creation, inUse: Int) {
        let creating = state == .creating
        if creating, claimantIsAlive, nextAttemptAt > now { return (.leave, inUse) }
        guard isWanted else { return (.drop, creating ? inUse - 1 : inUse) }
        guard creating || inUse < limit else { return (.leave, inUse) }
        return (.claim, creating ? inUse : inUse + 1)
    }
}
