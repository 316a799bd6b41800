import Catalog
import Foundation
import Game
import PushPolicy
import Store
import Vocabulary
import Wire

/// One adventure as it was played, with everything needed to play it again and
/// compare: the content it ran with, its setup and commands, and what it logged
/// and decided to push. Built from the store, or read from a session file.
public struct SavedSession: Hashable, Codable, Sendable {
    public var adventureID: AdventureID
    /// The content version the adventure recorded when it started.
    public var contentVersion: String
    public var content: ContentSnapshot
    public var setup: AdventureSetup
    /// Unix seconds; tick `n` happened at `startedAt + n × tickInterval`.
    public var startedAt: Int
    /// How far it had been played when saved, and how it stood then.
    public var lastTick: Int
    public var status: AdventureStatus
    public var commands: [ScheduledCommand]
    public var events: [SessionEvent]
    /// The Live Activities that followed it: who, which hero, which language.
    public var activities: [LiveActivityRecipient]
    public var pushes: SessionPushes

    public init(adventureID: AdventureID, contentVersion: String, content: ContentSnapshot, setup: AdventureSetup,
                startedAt: Int, lastTick: Int, status: AdventureStatus, commands: [ScheduledCommand],
                events: [SessionEvent], activities: [LiveActivityRecipient], pushes: SessionPushes) {
        self.adventureID = adventureID
        self.contentVersion = contentVersion
        self.content = content
        self.setup = setup
        self.startedAt = startedAt
        self.lastTick = lastTick
        self.status = status
        self.commands = commands
        self.events = events
        self.activities = activities
        self.pushes = pushes
    }

    /// The store's record of an adventure with `content` as its snapshot; the caller
    /// checks that `content` is what the adventure ran with. Without the record's
    /// outbox the session has no pushes.
    public init(_ record: AdventureRecord, content: ContentSnapshot) throws {
        let stored = record.adventure
        self.init(
            adventureID: stored.id, contentVersion: stored.contentVersion, content: content,
            setup: stored.setup, startedAt: stored.startedAt, lastTick: stored.lastTick, status: stored.status,
            commands: record.commands, events: record.events.map { SessionEvent(tick: $0.tick, json: $0.json) },
            activities: record.activities, pushes: try SessionPushes((record.outbox ?? []).map(SessionPush.init)))
    }

    /// Unix seconds of a tick.
    public func time(ofTick tick: Int) -> Int { startedAt + tick * setup.tickInterval }
}

/// One entry of the event log, the event kept as the JSON text it was saved as, so
/// a replay compares text and decodes only what differs. In a session file it is
/// one string, the tick and the event with its double and single quotes swapped:
/// `"12 {'hero':'egghead','type':'heroRevived'}"`. That reads as well and needs no
/// escapes, which `JSONDecoder` reads ten times slower than plain text.
public struct SessionEvent: Hashable, Codable, Sendable {
    public var tick: Int
    public var json: String

    public init(tick: Int, json: String) {
        self.tick = tick
        self.json = json
    }

    public init(tick: Int, event: GameEvent) {
        self.init(tick: tick, json: CanonicalJSON.text(of: event))
    }

    public func decoded() throws -> GameEvent { try JSONDecoder().decode(GameEvent.self, from: Data(json.utf8)) }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let line = try container.decode(String.self)
        guard let space = line.firstIndex(of: " "), let tick = Int(line[..<space]), tick >= 1 else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription:
                "should be a tick and an event, e.g. \"12 {'type':…}\", not \"\(line.prefix(40))\"")
        }
        self.init(tick: tick, json: Self.swappingQuotes(line[line.index(after: space)...]))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode("\(tick) \(Self.swappingQuotes(json[...]))")
    }

    /// `"` ↔ `'`: both ASCII, so swapping bytes keeps UTF-8 valid, and swapping twice gives the text back.
    private static func swappingQuotes(_ text: Substring) -> String {
        let double = UInt8(ascii: "\""), single = UInt8(ascii: "'")
        return String(unsafeUninitializedCapacity: text.utf8.count) { buffer in
            var count = 0
            for byte in text.utf8 {
                buffer[count] = byte == double ? single : byte == single ? double : byte
                count += 1
            }
            return count
        }
    }
}

/// The pushes of a session, each kept as the JSON text of a `SessionPush`: a replay
/// only counts them, and decoding 17,000 pushes would take longer than the replay.
/// In a session file each text is base64: JSON inside JSON (the payload is a third
/// level) is mostly escapes, which `JSONDecoder` reads ten times slower than base64.
public struct SessionPushes: Hashable, Codable, Sendable {
    public var texts: [String]

    public init(_ pushes: [SessionPush]) throws {
        let encoder = JSONEncoder.sorted
        texts = try pushes.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
    }

    public var count: Int { texts.count }

    public func decoded() throws -> [SessionPush] {
        let decoder = JSONDecoder()
        return try texts.enumerated().map { index, text in
            do {
                return try decoder.decode(SessionPush.self, from: Data(text.utf8))
            } catch {
                let problem = decodingProblem(error, file: "push")
                let field = problem.location.isEmpty ? "" : ".\(problem.location)"
                throw SessionFileError.invalid("field 'session.pushes[\(index)]\(field)' \(problem.message)")
            }
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        texts = try container.decode([String].self).enumerated().map { index, encoded in
            guard let data = Data(base64Encoded: encoded) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "push \(index) is not base64")
            }
            return String(decoding: data, as: UTF8.self)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(texts.map { Data($0.utf8).base64EncodedString() })
    }
}

/// A push the server decided on, as its outbox kept it.
public struct SessionPush: Hashable, Codable, Sendable {
    /// Nil for pushes decided outside a tick (none today; kept as the outbox allows it).
    public var tick: Int?
    public var targetKind: PushTarget.Kind
    /// The activity, device or channel member it went to.
    public var targetID: String
    public var topic: Topic
    public var priority: Priority
    public var reason: String
    /// `start`, `update` or `end`.
    public var event: String
    public var alert: Alert?
    public var expiration: Int
    /// What became of it: sent, superseded, dropped …
    public var state: String
    /// The body, byte for byte as it was (or would have been) sent.
    public var payload: String

    public init(tick: Int?, targetKind: PushTarget.Kind, targetID: String, topic: Topic, priority: Priority, reason: String, event: String,
                alert: Alert?, expiration: Int, state: String, payload: String) {
        self.tick = tick
        self.targetKind = targetKind
        self.targetID = targetID
        self.topic = topic
        self.priority = priority
        self.reason = reason
        self.event = event
        self.alert = alert
        self.expiration = expiration
        self.state = state
        self.payload = payload
    }

    init(_ entry: OutboxEntry) throws {
        let message = entry.message
        // Every body in the outbox was encoded from a `LiveActivityPayload`.
        let decoded = try? JSONDecoder().decode(LiveActivityPayload.self, from: message.payload)
        self.init(tick: entry.tick, targetKind: message.target.kind, targetID: message.target.id,
                  topic: message.topic, priority: message.priority, reason: message.reason,
                  event: decoded?.event.name ?? message.pushType.rawValue, alert: decoded?.alert,
                  expiration: message.expiration, state: entry.state.rawValue,
                  payload: String(decoding: message.payload, as: UTF8.self))
    }
}
