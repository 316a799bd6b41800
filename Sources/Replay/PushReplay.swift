import APNs
import Foundation
import Game
import PushPolicy
import Vocabulary
import Wire

/// One hero's view of a saved session, pushed again to one device, compressed in
/// time. The pushes are decided again by `PushPolicy` for a single Live Activity,
/// then moved to now: a moment `t` seconds into the adventure is sent `t / speed`
/// seconds after the replay starts. Each push's stale, dismissal and expiration
/// dates keep their place relative to its timestamp, compressed by the same
/// factor, and timestamps are whole seconds made strictly increasing, since the
/// device drops a state not newer than the one it shows.
public struct PushReplay: Sendable {
    public struct Push: Sendable {
        /// Seconds after the replay starts at which to send it.
        public var sendAfter: Double
        public var tick: Int
        /// A start goes to the push-to-start token, the rest to the activity's token.
        public var isStart: Bool
        public var priority: Priority
        public var expiration: Int
        public var payload: LiveActivityPayload
        public var reason: String
    }

    public var hero: HeroID
    public var pushes: [Push]

    /// `withStart`: begin with a push-to-start, as the server does for a member's
    /// device that registered a token.
    public init(_ session: SavedSession, content: ReplayContent, hero chosen: HeroID?, speed: Double,
                startingAt start: Date, withStart: Bool, policy configuration: PushPolicyConfiguration) throws {
        guard speed > 0, speed.isFinite else { throw PushReplayError.speed(speed) }
        let roster = session.setup.party
        guard let member = chosen.map({ hero in roster.first { $0.hero == hero } }) ?? roster.first else {
            throw PushReplayError.heroNotInParty(chosen?.rawValue ?? "", party: roster.map(\.hero.rawValue))
        }
        // Followed as the server followed it, if an activity for the hero was registered.
        let activity = session.activities.first { $0.hero == member.hero }
        let recipient = LiveActivityRecipient(
            activityID: activity?.activityID ?? ActivityID("replay-\(member.hero)"), player: member.player,
            hero: member.hero, frequentUpdates: activity?.frequentUpdates ?? true, language: activity?.language ?? "en")
        _ = try Verifier.playable(session, content)
        let pipeline = try TickPipeline(adventureID: session.adventureID, setup: session.setup, startedAt: session.startedAt,
                                        content: content.game, strings: content.strings, configuration: configuration)

        var decisions: [(tick: Int, decision: PushDecision)] = []
        if withStart {
            let starter = PushToStartRecipient(player: member.player, hero: member.hero, language: recipient.language)
            decisions += try pipeline.start(pushToStart: [starter]).decisions.map { (0, $0) }
        }
        try pipeline.play(commands: session.commands, recipients: [recipient], through: session.lastTick) { outcome in
            decisions += outcome.decisions.map { (outcome.state.tick, $0) }
        }

        let origin = Double(session.startedAt)
        let now = start.timeIntervalSince1970
        func compressed(_ seconds: Int) -> Double { (Double(seconds) - origin) / speed }
        var lastTimestamp = Int.min
        pushes = decisions.map { tick, decision in
            var payload = decision.payload
            let original = payload.timestamp.seconds
            let timestamp = max(Int((now + compressed(original)).rounded(.down)), lastTimestamp + 1)
            lastTimestamp = timestamp
            func moved(_ date: Int) -> Int {
                timestamp + max(1, Int((Double(date - original) / speed).rounded(.up)))
            }
            payload.timestamp = UnixTimestamp(seconds: timestamp)
            payload.staleDate = payload.staleDate.map { UnixTimestamp(seconds: moved($0.seconds)) }
            if case .end(let dismissal?, let alert) = payload.event {
                payload.event = .end(dismissalDate: UnixTimestamp(seconds: moved(dismissal.seconds)), alert: alert)
            }
            return Push(sendAfter: compressed(original), tick: tick, isStart: decision.payload.attributes != nil,
                        priority: decision.priority, expiration: moved(decision.expiration), payload: payload,
                        reason: decision.reason)
        }
        hero = member.hero
    }

    /// Sends every push in order at its time; stops at the first one APNs does not
    /// deliver. `progress` is told after each push.
    public func send(
        through client: APNsClient, token: String, pushToStartToken: String?, bundleID: String,
        startedAt start: ContinuousClock.Instant = .now,
        progress: (_ sent: Int, _ push: Push, _ delivery: APNsDelivery) -> Void
    ) async throws -> Int {
        let encoder = PayloadEncoder()
        var sent = 0
        for push in pushes {
            let target = push.isStart ? pushToStartToken : token
            guard let target else { continue }
            let due = start + .milliseconds(Int64(push.sendAfter * 1000))
            if due > .now { try await Task.sleep(until: due, clock: .continuous) }
            let request = APNsRequest.liveActivity(deviceToken: target, bundleID: bundleID, priority: push.priority.rawValue,
                                                   expiration: push.expiration, payload: try encoder.encode(push.payload))
            let delivery = try await client.send(request)
            sent += 1
            progress(sent, push, delivery)
            guard case .delivered = delivery.outcome else { throw PushReplayError.notDelivered(tick: push.tick, delivery.outcome) }
        }
        return sent
    }

    /// How many pushes `send` will make with or without a push-to-start token.
    public func count(withPushToStart: Bool) -> Int {
        withPushToStart ? pushes.count : pushes.filter { !$0.isStart }.count
    }
}

public enum PushReplayError: Error, CustomStringConvertible {
    case speed(Double)
    case heroNotInParty(String, party: [String])
    case notDelivered(tick: Int, APNsOutcome)

    public var description: String {
        switch self {
        case .speed(let speed): "the speed must be a positive number, not \(speed)"
        case .heroNotInParty(let hero, let party): "hero '\(hero)' is not in the party (\(party.joined(separator: ", ")))"
        case .notDelivered(let tick, let outcome): "the push of tick \(tick) was not delivered: \(outcome)"
        }
    }
}
