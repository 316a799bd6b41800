import APNs
import Foundation
import Logging
import Metrics
import NIOConcurrencyHelpers
import Store
import Vocabulary

/// The server's side of the followers' broadcast channels on APNs: making one a
/// follow (or the keeper) has claimed, deleting those done with, and sweeping
/// the app's channels no node knows. The store says which channel to make or
/// delete and holds the claims; this talks to APNs and records what it answered.
///
/// Shared by the HTTP API (the first follower of a language makes the channel at
/// once, to hand its id out) and the `ChannelKeeper` (retries, deletes, sweeps).
/// The channel side of the APNs client is given once it exists (`use(_:)`).
public final class FollowerChannels: @unchecked Sendable {
    private let store: any FollowerStore
    private let now: @Sendable () -> Date
    private let metrics: any MetricsFactory
    private let logger = Logger(label: "rangers.follower-channels")
    private let lock = NIOLock()
    private var sender: (any BroadcastChannelSender)?

    public init(store: any FollowerStore, now: @escaping @Sendable () -> Date, metrics: any MetricsFactory) {
        self.store = store
        self.now = now
        self.metrics = metrics
    }

    /// Where channel requests go: the APNs client (or a test's recorder).
    public func use(_ sender: any BroadcastChannelSender) { lock.withLock { self.sender = sender } }

    var channelSender: (any BroadcastChannelSender)? { lock.withLock { sender } }

    private func count(_ event: String) {
        Counter(label: "rangers_follower_channels_total", dimensions: [("event", event)], factory: metrics).increment()
    }

    /// Seconds before making a channel is tried again after attempt `attempt` failed:
    /// doubling from one second, at most five minutes.
    static func retryDelay(afterAttempt attempt: Int) -> TimeInterval { min(300, pow(2, Double(max(0, attempt - 1)))) }

    /// Makes the claimed channel on APNs and records the result. Never throws: a
    /// channel that could not be made is retried later by whichever node claims it.
    public func make(_ creation: ChannelCreation, bundleID: String) async -> ChannelAvailability {
        guard let sender = channelSender else {
            return await notMade(creation, reason: "no broadcast channel sender is configured", retryIn: 60, limitReached: false)
        }
        let answer: APNsChannelAnswer<BroadcastChannelID>
        do {
            answer = try await sender.createChannel(bundleID: bundleID, storagePolicy: creation.storagePolicy, requestID: nil)
        } catch {
            return await notMade(creation, reason: "not sent: \(error)", retryIn: 300, limitReached: false)
        }
        switch (answer.outcome, answer.value) {
        case (.succeeded, let apnsID?):
            do {
                let channel = try await store.channelCreated(creation, as: apnsID, at: now())
                count("made")
                logger.info("followers' channel made", metadata: [
                    "adventure": "\(creation.adventure)", "language": "\(creation.language)", "channel": "\(apnsID)",
                ])
                return .open(channel.id, apnsID)
            } catch {
                // The claim was taken over (this node was taken for stopped): another
                // maker's channel will be the one; this one nobody knows.
                logger.warning("made a followers' channel for a claim that was taken over; deleting it",
                               metadata: ["channel": "\(apnsID)", "error": "\(error)"])
                _ = try? await sender.deleteChannel(apnsID, bundleID: bundleID, requestID: nil)
                return .beingMade
            }
        case (.channelLimitReached, _):
            return await notMade(creation, reason: "APNs: the app's channel limit is reached (CannotCreateChannelConfig)",
                                 retryIn: FollowerRules.channelLimitRetry, limitReached: true)
        case (.retryLater(let reason), _):
            return await notMade(creation, reason: "APNs: try later (\(reason))",
                                 retryIn: Self.retryDelay(afterAttempt: creation.attempt), limitReached: false)
        case (.rejected(let reason), _), (.channelGone(let reason), _):
            return await notMade(creation, reason: "APNs refused: \(reason)", retryIn: 300, limitReached: false)
        case (.succeeded, nil):
            return await notMade(creation, reason: "APNs answered without a channel id", retryIn: 60, limitReached: false)
        }
    }

    private func notMade(_ creation: ChannelCreation, reason: String, retryIn seconds: TimeInterval,
                         limitReached: Bool) async -> ChannelAvailability {
        count("notMade")
        let retryAt = now().addingTimeInterval(seconds)
        logger.warning("followers' channel not made; trying again later", metadata: [
            "adventure": "\(creation.adventure)", "language": "\(creation.language)", "reason": "\(reason)",
            "retryInSeconds": "\(Int(seconds))",
        ])
        do {
            try await store.channelNotCreated(creation, retryAt: retryAt, reason: reason, at: now())
        } catch {
            logger.error("cannot record a channel not made", metadata: ["error": "\(error)"])
        }
        return .unavailable(retryAt: retryAt, limitReached: limitReached)
    }

    /// Makes the channels followers want that nobody is making: after a failure,
    /// after the limit left room again, or after their maker stopped.
    func makeWanted(bundleID: String, channelLimit: Int) async throws {
        guard channelSender != nil else { return }
        for creation in try await store.takeChannelCreations(limit: 16, channelLimit: channelLimit, at: now()) {
            _ = await make(creation, bundleID: bundleID)
        }
    }

    /// Deletes on APNs the channels whose adventure's end has been sent and whose
    /// dismissal date has passed (`endedBy`). One APNs refuses now is tried at the next pass.
    func deleteDone(endedBy: Int, bundleID: String) async throws {
        guard let sender = channelSender else { return }
        for channel in try await store.channelsToDelete(endedBy: endedBy, limit: 64, at: now()) {
            guard let apnsID = channel.apnsID else { continue }
            let answer: APNsChannelAnswer<Void>
            do {
                answer = try await sender.deleteChannel(apnsID, bundleID: bundleID, requestID: nil)
            } catch is CancellationError {
                return
            } catch {
                logger.error("cannot delete a followers' channel", metadata: ["channel": "\(apnsID)", "error": "\(error)"])
                continue
            }
            switch answer.outcome {
            case .succeeded, .channelGone:
                try await store.channelDeleted(channel.id, note: "deleted after the end's dismissal date", at: now())
                count("deleted")
            case .retryLater, .rejected, .channelLimitReached:
                logger.warning("followers' channel not deleted yet", metadata: [
                    "channel": "\(apnsID)", "answer": "\(answer.outcome)",
                ])
            }
        }
    }

    /// The channels APNs lists for the app that no node knows, as one sweep finds
    /// them: `deletable` now (no channel was being made when the store was read,
    /// after the listing, so none of them can still be stored) and `suspect` (one
    /// was being made: deleted only if still unknown after the grace).
    struct Unknown {
        var deletable: Set<BroadcastChannelID>
        var suspect: Set<BroadcastChannelID>
    }

    /// Lists the app's channels on APNs, then reads what the store knows. Nil
    /// without a channel sender; throws `ChannelManagementUnavailable` when APNs
    /// refused the listing or did not answer it.
    func unknownChannels(bundleID: String) async throws -> Unknown? {
        guard let sender = channelSender else { return nil }
        let listed = try await sender.allChannels(bundleID: bundleID, requestID: nil)
        guard case .succeeded = listed.outcome, let channels = listed.value else {
            throw ChannelManagementUnavailable(answer: "\(listed.outcome)")
        }
        let known = try await store.knownChannels()
        let unknown = Set(channels).subtracting(known.apnsIDs)
        return known.creationsInFlight == 0 ? Unknown(deletable: unknown, suspect: []) : Unknown(deletable: [], suspect: unknown)
    }

    /// Deletes a channel no node knows; true when it is gone.
    func deleteUnknown(_ channel: BroadcastChannelID, bundleID: String) async -> Bool {
        guard let sender = channelSender,
              let answer = try? await sender.deleteChannel(channel, bundleID: bundleID, requestID: nil)
        else { return false }
        switch answer.outcome {
        case .succeeded, .channelGone:
            count("sweptUnknown")
            logger.notice("deleted a broadcast channel no node knows (left by a stop between making and storing it)",
                          metadata: ["channel": "\(channel)"])
            return true
        default:
            return false
        }
    }
}

extension Duration {
    public var seconds: TimeInterval { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// APNs did not let the server list the app's channels: refused (`Forbidden`,
/// `FeatureNotEnabled`: the key or the app's capability) or unanswered.
struct ChannelManagementUnavailable: Error, CustomStringConvertible {
    var answer: String
    var description: String { "APNs did not list the app's broadcast channels: \(answer)" }
}
