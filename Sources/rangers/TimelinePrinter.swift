import Catalog
import Foundation
import Game
import PushPolicy
import Replay
import Vocabulary
import Wire

/// Prints an adventure as it is played: readable text, or one JSON object per line
/// (`{"kind":"adventure",…}` first, then `{"kind":"event","tick":…,…}`).
struct TimelinePrinter {
    let content: ReplayContent
    let adventure: Adventure
    let language: String
    let json: Bool
    let topic: String
    private var buffer = ""
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    init(content: ReplayContent, adventure: Adventure, language: String, json: Bool, topic: String) {
        self.content = content
        self.adventure = adventure
        self.language = language
        self.json = json
        self.topic = topic
    }

    mutating func begin() {
        let setup = adventure.setup
        if json {
            line(AdventureLine(content: content.version, route: setup.route, party: setup.party, seed: setup.seed,
                               tickInterval: setup.tickInterval, timeLimit: setup.timeLimit))
            return
        }
        let route = content.game.route(setup.route)?.name ?? setup.route.rawValue
        buffer += "\(route) · seed \(setup.seed) · a tick every \(setup.tickInterval) s · "
            + "time limit \(clock(setup.timeLimit)) · content \(content.version)\n"
        buffer += "Party: " + zip(setup.party, adventure.heroes)
            .map { "\($1.avatar) \($1.name) (\($0.player))" }.joined(separator: " · ") + "\n"
        buffer += "Bosses: " + adventure.bosses.map { "\($0.avatar) \($0.name)" }.joined(separator: " → ") + "\n"
    }

    mutating func tick(_ state: AdventureState, _ events: [GameEvent]) {
        if json {
            for event in events { line(EventLine(tick: state.tick, time: state.tick * adventure.setup.tickInterval, event: event)) }
        } else {
            let boss = adventure.bosses[state.bossIndex]
            let heroes = zip(adventure.heroes, state.heroes)
                .map { "\($0.avatar) \($1.isKnockedDown ? "down" : String($1.health))" }.joined(separator: " ")
            buffer += "\ntick \(state.tick) · \(clock(state.tick * adventure.setup.tickInterval)) · "
                + "\(boss.avatar) \(state.boss.health)/\(state.boss.maxHealth) · \(heroes) · potions \(state.potions)\n"
            for event in events {
                buffer += "  " + content.strings.format(event.text(names: content.game), language: language) + "\n"
            }
        }
        if buffer.utf8.count > 1 << 16 { flush() }
    }

    /// After a tick's events: `{"kind":"push",…}` lines with the exact APNs body,
    /// or one text line per push.
    mutating func pushes(_ decisions: [PushDecision], tick: Int) {
        for decision in decisions {
            let recipient = switch decision.target {
            case .liveActivity(let id): id.rawValue
            case .pushToStart(let player): "push-to-start:\(player)"
            case .followerChannel(let id): "followerChannel:\(id)"
            }
            let body = String(decoding: decision.body, as: UTF8.self)
            push(PushLine(tick: tick, recipient: recipient, hero: decision.hero?.rawValue ?? "-", event: decision.payload.event.name,
                          priority: decision.priority.rawValue, alert: decision.payload.alert, reason: decision.reason,
                          expiration: decision.expiration, payload: body, topic: topic, state: nil))
        }
    }

    /// The pushes a server decided on, as a saved session keeps them.
    mutating func savedPushes(_ pushes: [SessionPush], heroes: [ActivityID: HeroID]) {
        for saved in pushes {
            let recipient = saved.targetKind == .liveActivity ? saved.targetID : "\(saved.targetKind.rawValue):\(saved.targetID)"
            push(PushLine(tick: saved.tick ?? 0, recipient: recipient, hero: heroes[ActivityID(saved.targetID)]?.rawValue ?? "?",
                          event: saved.event, priority: saved.priority.rawValue, alert: saved.alert, reason: saved.reason,
                          expiration: saved.expiration, payload: saved.payload, topic: saved.topic.rawValue, state: saved.state))
        }
    }

    private struct PushLine {
        var tick: Int
        var recipient: String
        var hero: String
        var event: String
        var priority: Int
        var alert: Alert?
        var reason: String
        var expiration: Int
        /// The exact body, as JSON text.
        var payload: String
        var topic: String
        /// What became of it, for a push that was queued.
        var state: String?
    }

    private mutating func push(_ push: PushLine) {
        if json {
            // Keys in sorted order, as everywhere else; the payload is spliced in
            // as the exact bytes APNs would receive.
            buffer += #"{"expiration":\#(push.expiration),"kind":"push","payload":\#(push.payload),"#
                + #""priority":\#(push.priority),"pushType":"liveactivity","#
                + #""reason":\#(quoted(push.reason)),"recipient":\#(quoted(push.recipient)),"#
                + (push.state.map { #""state":\#(quoted($0)),"# } ?? "")
                + #""tick":\#(push.tick),"topic":\#(quoted(push.topic))}"# + "\n"
            return
        }
        var line = "  → \(push.event) \(push.recipient) (\(push.hero)) priority \(push.priority)"
        if let alert = push.alert, case .localized(let key, _) = alert.title {
            line += " alert \(key) 🔔 \(alert.sound ?? "default")"
        }
        buffer += line + " — \(push.reason)" + (push.state.map { " [\($0)]" } ?? "") + "\n"
    }

    private func quoted(_ text: String) -> String {
        String(decoding: try! encoder.encode(text), as: UTF8.self)
    }

    mutating func flush() {
        FileHandle.standardOutput.write(Data(buffer.utf8))
        buffer = ""
    }

    private mutating func line(_ value: some Encodable) {
        // Encoding these plain values cannot fail.
        buffer += String(decoding: try! encoder.encode(value), as: UTF8.self) + "\n"
    }

    private func clock(_ seconds: Int) -> String {
        String(format: "%d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60)
    }
}

private struct AdventureLine: Encodable {
    let kind = "adventure"
    var content: String
    var route: RouteID
    var party: [PartyMember]
    var seed: UInt64
    var tickInterval: Int
    var timeLimit: Int
}

/// An event with its tick and time (seconds since the start) merged into one object.
private struct EventLine: Encodable {
    var tick: Int
    var time: Int
    var event: GameEvent

    private enum Field: String, CodingKey { case kind, tick, time }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Field.self)
        try container.encode("event", forKey: .kind)
        try container.encode(tick, forKey: .tick)
        try container.encode(time, forKey: .time)
        try event.encode(to: encoder)
    }
}
