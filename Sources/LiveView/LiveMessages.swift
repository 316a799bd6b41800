import APNs
import Foundation
import Replay
import Store
import Vocabulary

/// What the live page's stream says, one `ServerSentEvent` each, its data JSON.
/// The page draws the cards from `push` messages alone: the payload is the exact
/// body the phone received.
enum LiveMessage {
    /// Sent first on every connection: what the page needs to draw anything.
    struct Adventure: Encodable {
        struct Figure: Encodable {
            var id: String
            var name: String
            var avatar: String
        }

        var id: String
        var route: String
        var tickInterval: Int
        var startedAt: Int
        var status: String
        var lastTick: Int
        /// The party, in party order (the order of `TimelineSample.heroHealth`).
        var heroes: [Figure]
        /// The route's bosses, in the order fought (`TimelineSample.bossIndex`).
        var bosses: [Figure]
        var cards: [LiveCard]
        var languages: [String]
        /// language → key → template: every text of the string catalog.
        var strings: [String: [String: String]]
        /// Why no timeline is drawn, when none can be.
        var timelineUnavailable: String?
        /// The link's end, unix seconds.
        var linkExpiresAt: Int
        /// The server's clock, unix seconds: stale and dismissal dates are read against it.
        var now: Double
    }

    /// One push log entry: what one phone was sent and what APNs answered.
    struct Push: Encodable {
        enum Answer: String, Encodable {
            /// APNs accepted it: the phone shows it.
            case delivered
            /// The token is no longer valid: the phone is gone. For a broadcast: APNs
            /// no longer has the channel (the server makes it again while the adventure runs).
            case gone
            /// APNs refused it, or no answer came: the phone never got it.
            case refused
        }

        var card: String
        var targetKind: String
        var targetID: String
        /// The first hex digits of the token (of the channel's id, for a broadcast),
        /// enough to tell them apart.
        var token: String
        var pushType: String
        var priority: Int
        var status: Int?
        var reason: String?
        var answer: Answer
        var apnsID: String?
        var attempts: Int
        /// Unix seconds.
        var sentAt: Double
        var tick: Int?
        /// The policy's reason for the priority.
        var decision: String
        /// The body exactly as sent, as text.
        var payload: String
        /// What the endpoint recorded, when it is the simulator (`EndpointRecords`).
        var endpoint: EndpointRecord?

        struct EndpointRecord: Encodable {
            /// The devices the push reached there; nil when the endpoint holds no record of it.
            var devicesReached: Int?
        }

        init(_ entry: PushLogEntry, card: String) {
            self.card = card
            targetKind = entry.target.kind.rawValue
            targetID = entry.target.id
            token = String(entry.destination.description.prefix(8)) + "…"
            pushType = entry.pushType.rawValue
            priority = entry.priority.rawValue
            status = entry.status
            reason = entry.reason
            answer = Self.answer(status: entry.status, reason: entry.reason, broadcast: entry.target.kind == .followerChannel)
            apnsID = entry.apnsID
            attempts = entry.attempts
            sentAt = entry.sentAt.timeIntervalSince1970
            tick = entry.tick
            decision = entry.decision
            payload = String(decoding: entry.payload, as: UTF8.self)
        }

        /// As the APNs client classifies the answer it got: a broadcast's as a
        /// channel request's (ChannelNotRegistered, BadChannelId: the channel is gone).
        static func answer(status: Int?, reason: String?, broadcast: Bool = false) -> Answer {
            guard let status else { return .refused }
            if broadcast {
                switch APNsChannelOutcome(status: status, reason: reason.map(APNsReason.init)) {
                case .succeeded: return .delivered
                case .channelGone: return .gone
                case .channelLimitReached, .retryLater, .rejected: return .refused
                }
            }
            switch APNsResponse(status: status, reason: reason.map(APNsReason.init)).outcome {
            case .delivered: return .delivered
            case .tokenNoLongerValid: return .gone
            case .retryLater, .rejected: return .refused
            }
        }
    }

    /// The pushes waiting to be sent again, by card, as they stand now (all of them each time).
    struct Waiting: Encodable {
        struct Push: Encodable, Equatable {
            var tick: Int?
            var priority: Int
            var decision: String
            /// Why it waits ("retrying: TooManyRequests").
            var outcome: String?
            var attempts: Int
        }

        var cards: [String: [Push]]
    }

    struct Ticks: Encodable {
        var samples: [TimelineSample]
    }

    struct Clock: Encodable {
        var now: Double
    }

    /// Why the stream ends (`expired`) or the timeline stops (`timelineUnavailable`).
    struct Notice: Encodable {
        var message: String
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static func event<Message: Encodable>(_ name: String, _ message: Message, id: String? = nil) throws -> ServerSentEvent {
        ServerSentEvent(id: id, event: name, data: String(decoding: try encoder.encode(message), as: UTF8.self))
    }
}
