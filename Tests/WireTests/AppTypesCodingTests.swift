import Foundation
import Testing
import Vocabulary
import Wire

/// The phone decodes `content-state` and `attributes` with a plain
/// `JSONDecoder()`; these tests decode the server's bytes exactly that way.
@Suite struct AppTypesCodingTests {
    /// What the widget extension sees of a push: `content-state` (and for
    /// push-to-start `attributes`) decoded by a decoder with no configuration.
    struct PhoneView: Decodable {
        struct APS: Decodable {
            var contentState: AdventureAttributes.ContentState
            var attributes: AdventureAttributes?

            enum CodingKeys: String, CodingKey {
                case contentState = "content-state"
                case attributes
            }
        }

        var aps: APS
    }

    @Test(arguments: Samples.liveActivityPayloads)
    func plainDecoderReadsBackTheContentState(name: String, payload: LiveActivityPayload) throws {
        let body = try PayloadEncoder().encode(payload)
        let seen = try JSONDecoder().decode(PhoneView.self, from: body)
        #expect(seen.aps.contentState == payload.contentState)
        #expect(seen.aps.attributes == payload.attributes)
    }

    /// Many different states, including non-ASCII text, awkward doubles and
    /// descriptions long enough to be shortened: whatever is sent decodes to
    /// exactly the state the encoder reports as sent.
    @Test func plainDecoderReadsBackManySeededRandomStates() throws {
        var random = SplitMix64(seed: 2026)
        let encoder = PayloadEncoder()
        var shortenedCount = 0
        for _ in 0..<300 {
            let payload = LiveActivityPayload(
                timestamp: Samples.timestamp, event: .update(),
                contentState: random.contentState(), staleDate: Samples.timestamp.adding(seconds: 30))
            let sent = try encoder.fitted(payload).payload
            let body = try encoder.encode(payload)
            #expect(body.count <= LiveActivityPayload.sizeLimit)
            let seen = try JSONDecoder().decode(PhoneView.self, from: body)
            #expect(seen.aps.contentState == sent.contentState)
            if sent != payload { shortenedCount += 1 }
        }
        // Both paths must have been exercised for this test to mean anything.
        #expect((1..<300).contains(shortenedCount))
    }

    /// `Date` in the app's types counts from 2001 (Swift's default); `aps`
    /// dates count from 1970. The same instant must come out as two numbers.
    @Test func attributeDatesCountFrom2001WhileApsDatesCountFrom1970() throws {
        let instant = Date(timeIntervalSince1970: 1_700_000_000)
        var attributes = Samples.attributes
        attributes.endsAt = instant
        let payload = LiveActivityPayload(
            timestamp: UnixTimestamp(instant),
            event: .start(attributes: attributes, alert: Samples.startAlert),
            contentState: Samples.freshState, staleDate: UnixTimestamp(instant).adding(seconds: 60))
        let body = try PayloadEncoder().encode(payload)
        let text = String(decoding: body, as: UTF8.self)

        #expect(text.contains(#""endsAt":721692800"#))
        #expect(text.contains(#""timestamp":1700000000"#))
        #expect(text.contains(#""stale-date":1700000060"#))
        let aps = try Samples.aps(body)
        let sentAttributes = try #require(aps["attributes"] as? [String: Any])
        #expect((sentAttributes["endsAt"] as? NSNumber)?.doubleValue == 721_692_800)
        #expect((aps["timestamp"] as? NSNumber)?.intValue == 1_700_000_000)

        let seen = try JSONDecoder().decode(PhoneView.self, from: body)
        #expect(seen.aps.attributes?.endsAt == instant)
    }

    @Test func unixTimestampRoundsDownToWholeSeconds() {
        #expect(UnixTimestamp(Date(timeIntervalSince1970: 1_700_000_000.999)).seconds == 1_700_000_000)
        #expect(UnixTimestamp(Date(timeIntervalSince1970: -0.5)).seconds == -1)
        #expect(UnixTimestamp(seconds: 1_700_000_000).date == Date(timeIntervalSince1970: 1_700_000_000))
    }

    /// The widget's types use camelCase property names as keys, unlike `aps`.
    @Test func contentStateKeysAreThePropertyNames() throws {
        let body = try PayloadEncoder().encode(Samples.updateWithAlert)
        let state = try #require(try Samples.aps(body)["content-state"] as? [String: Any])
        #expect(Set(state.keys) == [
            "currentHealthLevel", "eventDescription", "heroes", "boss", "latestEvent", "potions",
        ])
        let hero = try #require((state["heroes"] as? [[String: Any]])?.first)
        #expect(Set(hero.keys) == ["id", "healthLevel", "isKnockedDown"])
        let boss = try #require(state["boss"] as? [String: Any])
        #expect(Set(boss.keys) == ["id", "healthLevel", "isEnraged", "position"])
        let event = try #require(state["latestEvent"] as? [String: Any])
        #expect(event["key"] as? String == "event.heroKnockedDown")
        #expect(event["args"] as? [String] == ["Power Panda"])
    }
}

/// Generated values from a seeded generator, so a failing state can be reproduced.
extension SplitMix64 {
    static let words = ["Power Panda", "🐼", "용사", "冒险者", "Mr. Spook", "💀", "👩‍👩‍👧‍👦", "🇻🇳", "é", "\"quoted\"", "a/b", "\\"]

    mutating func text(words count: Int) -> String {
        (0..<count).map { _ in Self.words.randomElement(using: &self)! }.joined(separator: " ")
    }

    mutating func level() -> Double {
        Double.random(in: 0...1, using: &self)
    }

    mutating func contentState() -> AdventureAttributes.ContentState {
        let heroes = (0..<Int.random(in: 1...6, using: &self)).map { index in
            HeroStatus(id: "hero-\(index)", healthLevel: level(), isKnockedDown: Bool.random(using: &self))
        }
        return AdventureAttributes.ContentState(
            currentHealthLevel: heroes[0].healthLevel,
            eventDescription: text(words: Int.random(in: 0...700, using: &self)),
            heroes: heroes,
            boss: BossStatus(id: "boss", healthLevel: level(), isEnraged: Bool.random(using: &self),
                             position: Int.random(in: 0...5, using: &self)),
            latestEvent: EventText(key: "event.damageDealt", args: [text(words: 2), text(words: 1), "7"]),
            potions: Int.random(in: 0...5, using: &self))
    }
}
