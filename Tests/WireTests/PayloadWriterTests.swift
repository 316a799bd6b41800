import Foundation
import Testing
import Vocabulary
@testable import Wire

/// The hand-written payload JSON is `JSONEncoder`'s, byte for byte, over
/// generated Live Activity and Push To Talk payloads: every event, alerts plain
/// and localized, every language the catalog has, escapes, numbers of every
/// size, and the 4 KB shortening.
@Suite struct PayloadWriterTests {
    /// Generated values from a seeded generator, so a failure repeats.
    struct Generator {
        var random: SplitMix64
        init(seed: UInt64) { random = SplitMix64(seed: seed) }
        mutating func next() -> UInt64 { random.next() }
        mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
        mutating func bool() -> Bool { next() & 1 == 0 }
        mutating func pick<T>(_ values: [T]) -> T { values[int(0...values.count - 1)] }

        static let pieces = [
            "Power Panda", "Egghead", "Spouty", "🐼", "🥚🐳", "Gấu Trúc bị hạ gục!", "파워 판다가 쓰러졌다", "熊猫倒下了",
            "a \"quoted\" word", "back\\slash", "a/b/c", "tab\there", "line\nbreak", "\u{01}\u{1F}", "\r\u{08}\u{0C}",
            "e\u{301}", "‰ – … ¿", "", " ",
        ]
        mutating func text(maxPieces: Int = 4) -> String {
            (0..<int(0...maxPieces)).map { _ in pick(Self.pieces) }.joined(separator: pick(["", " ", "-"]))
        }
        mutating func level() -> Double {
            pick([0, 1, 0.5, 0.1, 1.0 / 3, 1e-7, Double(int(0...1000)) / 1000, Double(next() % 1_000_000) / 1_000_000])
        }
        mutating func alertText() -> AlertText {
            bool() ? .plain(text()) : .localized(key: pick(["HERO_DOWN", "BOSS_%@_ENRAGED", "a.b/c"]),
                                                   args: (0..<int(0...3)).map { _ in text(maxPieces: 2) })
        }
        mutating func alert() -> Alert {
            Alert(title: alertText(), body: alertText(), sound: bool() ? pick(["HeroDown.caf", "boss/Enraged.caf"]) : nil)
        }
        mutating func payload() -> LiveActivityPayload {
            let bosses = (0..<int(1...4)).map { index in
                BossSummary(id: "boss-\(index)", name: text(maxPieces: 2), avatar: pick(["🐺", "🐉", "x"]))
            }
            let party = (0..<int(1...6)).map { index in
                HeroSummary(id: "hero-\(index)", name: text(maxPieces: 2), avatar: pick(["🐼", "🥚", "🐳"]))
            }
            let heroID = pick(party).id
            let state = AdventureAttributes.ContentState(
                currentHealthLevel: level(), eventDescription: text(maxPieces: bool() ? 4 : 600),
                heroes: party.map { HeroStatus(id: $0.id, healthLevel: level(), isKnockedDown: bool()) },
                boss: BossStatus(id: pick(bosses).id, healthLevel: level(), isEnraged: bool(), position: int(0...bosses.count - 1)),
                latestEvent: EventText(key: pick(["event.damageDealt", "event.victory"]), args: (0..<int(0...3)).map { _ in text(maxPieces: 1) }),
                potions: int(0...99))
            let attributes = AdventureAttributes(
                adventureID: UUID().uuidString, heroID: heroID, routeName: text(maxPieces: 2), party: party, bosses: bosses,
                endsAt: Date(timeIntervalSinceReferenceDate: pick([0, 1, 8.5e8, Double(next() % 2_000_000_000) + 0.25])))
            let event: LiveActivityPayload.Event = switch int(0...2) {
            case 0: .start(attributes: attributes, alert: alert(), requestsUpdateToken: bool())
            case 1: .update(alert: bool() ? alert() : nil)
            default: .end(dismissalDate: bool() ? UnixTimestamp(seconds: int(0...2_000_000_000)) : nil, alert: bool() ? alert() : nil)
            }
            return LiveActivityPayload(
                timestamp: UnixTimestamp(seconds: int(0...2_000_000_000)), event: event, contentState: state,
                staleDate: bool() ? UnixTimestamp(seconds: int(0...2_000_000_000)) : nil,
                relevanceScore: bool() ? pick([0, 1, 100, 0.5, 1e21, 12_345.678, Double(int(0...100))]) : nil)
        }
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    @Test(arguments: 0..<8) func theWrittenBytesAreJSONEncodersBytes(seed: Int) throws {
        var generator = Generator(seed: UInt64(seed))
        for _ in 0..<250 {
            let payload = generator.payload()
            let written = PayloadWriter.json(payload)
            let encoded = try Self.encoder.encode(payload)
            #expect(written == encoded, "\(String(decoding: written, as: UTF8.self))\n\(String(decoding: encoded, as: UTF8.self))")
            guard written == encoded else { return }
        }
    }

    @Test func aPushToTalkPayloadIsWrittenAsJSONEncoderWould() throws {
        var generator = Generator(seed: 7)
        for _ in 0..<500 {
            let speaker = generator.bool() ? nil : PushToTalkPayload.ActiveSpeaker(
                playerID: UUID().uuidString, playerName: generator.text(maxPieces: 2), heroName: generator.text(maxPieces: 1),
                avatar: generator.pick(["🐼", "🥚", "🐳", "/"]))
            let payload = PushToTalkPayload(
                activeSpeaker: speaker, transmissionID: generator.bool() ? UUID().uuidString : nil,
                channelID: generator.bool() ? generator.text(maxPieces: 1) : nil, leaveChannel: generator.bool())
            let written = PayloadWriter.json(payload)
            #expect(written == (try Self.encoder.encode(payload)), "\(String(decoding: written, as: UTF8.self))")
        }
    }

    /// A payload over 4 KB is sent with its description shortened: the body sent
    /// is `JSONEncoder`'s encoding of the shortened payload, and the longest that fits.
    @Test func theShortenedPayloadIsEncodedAsJSONEncoderWould() throws {
        var generator = Generator(seed: 99)
        var shortened = 0
        for _ in 0..<200 {
            let payload = generator.payload()
            guard let (sent, body) = try? PayloadEncoder().fitted(payload) else { continue }
            #expect(body == (try Self.encoder.encode(sent)))
            #expect(body.count <= LiveActivityPayload.sizeLimit)
            if sent != payload { shortened += 1 }
        }
        #expect(shortened > 10, "the generator makes payloads that need shortening")
    }
}
