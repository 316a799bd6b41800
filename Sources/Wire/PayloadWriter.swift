import Foundation

/// Live Activity and Push To Talk payloads' JSON written by hand, byte for byte
/// what `JSONEncoder` with `.sortedKeys` and `.withoutEscapingSlashes` writes for
/// their `Codable` forms (a property test holds them to the same bytes over
/// generated payloads). Every push of every tick is encoded, and fitting one
/// into 4 KB may encode it a dozen times: `JSONEncoder` cost more than the rest
/// of the push's decision.
struct PayloadWriter {
    private(set) var bytes: [UInt8] = []

    static func json(_ payload: LiveActivityPayload) -> Data {
        var writer = PayloadWriter()
        writer.bytes.reserveCapacity(768)
        writer.write(payload)
        return Data(writer.bytes)
    }

    static func json(_ payload: PushToTalkPayload) -> Data {
        var writer = PayloadWriter()
        writer.bytes.reserveCapacity(256)
        writer.write(payload)
        return Data(writer.bytes)
    }

    // Keys in sorted order at every level, as `.sortedKeys` puts them.
    private mutating func write(_ payload: LiveActivityPayload) {
        literal("{\"aps\":")
        var aps = open()
        if let alert = payload.alert { key(&aps, "alert"); write(alert) }
        if let attributes = payload.attributes {
            key(&aps, "attributes"); write(attributes)
            key(&aps, "attributes-type"); string(LiveActivityPayload.attributesType)
        }
        key(&aps, "content-state"); write(payload.contentState)
        if let date = payload.dismissalDate { key(&aps, "dismissal-date"); integer(date.seconds) }
        key(&aps, "event"); string(payload.event.name)
        if case .start(_, _, true) = payload.event { key(&aps, "input-push-token"); integer(1) }
        if let score = payload.relevanceScore { key(&aps, "relevance-score"); number(score) }
        if let date = payload.staleDate { key(&aps, "stale-date"); integer(date.seconds) }
        key(&aps, "timestamp"); integer(payload.timestamp.seconds)
        close()
        literal("}")
    }

    private mutating func write(_ payload: PushToTalkPayload) {
        var root = open()
        if let speaker = payload.activeSpeaker {
            key(&root, "activeSpeaker")
            var object = open()
            key(&object, "avatar"); string(speaker.avatar)
            key(&object, "heroName"); string(speaker.heroName)
            key(&object, "playerID"); string(speaker.playerID)
            key(&object, "playerName"); string(speaker.playerName)
            close()
        }
        // Empty: APNs wants an `aps` dictionary in every push.
        key(&root, "aps"); literal("{}")
        if let channelID = payload.channelID { key(&root, "channelID"); string(channelID) }
        key(&root, "leaveChannel"); boolean(payload.leaveChannel)
        if let transmissionID = payload.transmissionID { key(&root, "transmissionID"); string(transmissionID) }
        close()
    }

    private mutating func write(_ state: AdventureAttributes.ContentState) {
        var object = open()
        key(&object, "boss")
        var boss = open()
        key(&boss, "healthLevel"); number(state.boss.healthLevel)
        key(&boss, "id"); string(state.boss.id)
        key(&boss, "isEnraged"); boolean(state.boss.isEnraged)
        key(&boss, "position"); integer(state.boss.position)
        close()
        key(&object, "currentHealthLevel"); number(state.currentHealthLevel)
        key(&object, "eventDescription"); string(state.eventDescription)
        key(&object, "heroes")
        array(state.heroes) { writer, hero in
            var object = writer.open()
            writer.key(&object, "healthLevel"); writer.number(hero.healthLevel)
            writer.key(&object, "id"); writer.string(hero.id)
            writer.key(&object, "isKnockedDown"); writer.boolean(hero.isKnockedDown)
            writer.close()
        }
        key(&object, "latestEvent")
        var event = open()
        key(&event, "args"); array(state.latestEvent.args) { $0.string($1) }
        key(&event, "key"); string(state.latestEvent.key)
        close()
        key(&object, "potions"); integer(state.potions)
        close()
    }

    private mutating func write(_ attributes: AdventureAttributes) {
        func summary(_ writer: inout PayloadWriter, avatar: String, id: String, name: String) {
            var object = writer.open()
            writer.key(&object, "avatar"); writer.string(avatar)
            writer.key(&object, "id"); writer.string(id)
            writer.key(&object, "name"); writer.string(name)
            writer.close()
        }
        var object = open()
        key(&object, "adventureID"); string(attributes.adventureID)
        key(&object, "bosses"); array(attributes.bosses) { summary(&$0, avatar: $1.avatar, id: $1.id, name: $1.name) }
        // `Date`'s own encoding: seconds since 2001, a number.
        key(&object, "endsAt"); number(attributes.endsAt.timeIntervalSinceReferenceDate)
        key(&object, "heroID"); string(attributes.heroID)
        key(&object, "party"); array(attributes.party) { summary(&$0, avatar: $1.avatar, id: $1.id, name: $1.name) }
        key(&object, "routeName"); string(attributes.routeName)
        close()
    }

    private mutating func write(_ alert: Alert) {
        var object = open()
        key(&object, "body"); write(alert.body)
        if let sound = alert.sound { key(&object, "sound"); string(sound) }
        key(&object, "title"); write(alert.title)
        close()
    }

    private mutating func write(_ text: AlertText) {
        switch text {
        case .plain(let text):
            string(text)
        case .localized(let locKey, let args):
            var object = open()
            if !args.isEmpty { key(&object, "loc-args"); array(args) { $0.string($1) } }
            key(&object, "loc-key"); string(locKey)
            close()
        }
    }

    // MARK: - Values

    /// Opens an object; the returned flag says no key has been written yet.
    private mutating func open() -> Bool {
        literal("{")
        return true
    }

    /// The object's next key, after a comma unless it is the first.
    private mutating func key(_ first: inout Bool, _ name: StaticString) {
        literal(first ? "\"" : ",\"")
        literal(name)
        literal("\":")
        first = false
    }

    private mutating func close() { literal("}") }

    private mutating func array<Element>(_ elements: [Element], _ write: (inout PayloadWriter, Element) -> Void) {
        literal("[")
        for (index, element) in elements.enumerated() {
            if index > 0 { literal(",") }
            write(&self, element)
        }
        literal("]")
    }

    /// Literals (keys, punctuation) are copied from the binary's bytes: appending
    /// a `String`'s UTF-8 view goes element by element, some 170 instructions for
    /// a two-byte literal, and a payload has a hundred of them.
    private mutating func literal(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    private mutating func integer(_ value: Int) { append(String(value)) }

    private mutating func boolean(_ value: Bool) { literal(value ? "true" : "false") }

    /// As `JSONEncoder` writes a `Double`: its shortest description, without a
    /// trailing ".0". (`validate()` has refused NaN and infinities before.)
    private mutating func number(_ value: Double) {
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        append(text)
    }

    /// A JSON string: `"` and `\` escaped, control characters as their short
    /// escapes or `\u00XX`; `/` and everything else as is, copied a run at a time.
    private mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var run = 0
            for (index, byte) in utf8.enumerated() where byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run..<index]))
                escape(byte)
                run = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func escape(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): literal("\\\"")
        case UInt8(ascii: "\\"): literal("\\\\")
        case 0x0A: literal("\\n")
        case 0x0D: literal("\\r")
        case 0x09: literal("\\t")
        case 0x08: literal("\\b")
        case 0x0C: literal("\\f")
        default:
            let hex = String(byte, radix: 16)
            append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
        }
    }
}
