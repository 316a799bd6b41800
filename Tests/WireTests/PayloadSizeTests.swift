import Foundation
import Testing
import Wire

@Suite struct PayloadSizeTests {
    let encoder = PayloadEncoder()
    let limit = LiveActivityPayload.sizeLimit

    /// An update whose fallback description is `text` repeated until the body is
    /// `overLimitBy` bytes past the limit (or as close above it as `text` allows).
    func update(describedBy text: String, overLimitBy excess: Int = 1) throws -> LiveActivityPayload {
        var payload = Samples.updateWithAlert
        payload.contentState.eventDescription = ""
        let room = limit + excess - (try encoder.json(payload).count)
        let repeats = (room + text.utf8.count - 1) / text.utf8.count
        payload.contentState.eventDescription = String(repeating: text, count: max(repeats, 1))
        return payload
    }

    @Test func bodyOfExactlyTheLimitIsSentUnchanged() throws {
        var payload = try update(describedBy: "a", overLimitBy: 0)
        #expect(try encoder.json(payload).count == limit)
        #expect(try encoder.fitted(payload).payload == payload)
        #expect(try encoder.encode(payload).count == limit)

        payload.contentState.eventDescription += "a"
        let sent = try encoder.fitted(payload).payload
        #expect(sent.contentState.eventDescription.hasSuffix("…"))
        #expect(try encoder.encode(payload).count <= limit)
    }

    @Test(arguments: [
        "👩‍👩‍👧‍👦",            // one grapheme of seven scalars, 25 bytes
        "🇻🇳🇰🇷",              // flags: pairs of regional indicators
        "冒险者击败了哥布林首领",  // CJK, 3 bytes a character
        "용사가쓰러졌다",         // Hangul syllables
        "e\u{301}",           // e + combining acute: one character, two scalars
        "Panda🐼",            // ASCII and emoji mixed
        "\"\\",               // characters JSON escapes, so bytes in JSON ≠ bytes in UTF-8
    ])
    func longDescriptionIsCutOnACharacterBoundaryToFit(text: String) throws {
        let payload = try update(describedBy: text, overLimitBy: 300)
        #expect(try encoder.json(payload).count > limit)

        let body = try encoder.encode(payload)
        let sent = try encoder.fitted(payload).payload
        #expect(body.count <= limit)
        #expect(body == (try encoder.json(sent)))
        #expect(try JSONDecoder().decode(LiveActivityPayload.self, from: body) == sent)

        let original = Array(payload.contentState.eventDescription)
        let description = sent.contentState.eventDescription
        #expect(description.hasSuffix("…"))
        let kept = Array(description.dropLast())
        #expect(original.starts(with: kept), "kept text must be whole characters of the original")
        #expect(kept.count < original.count)

        // As long as possible: one more character would not have fitted.
        var longer = sent
        longer.contentState.eventDescription = String(original.prefix(kept.count + 1)) + "…"
        #expect(try encoder.json(longer).count > limit)

        // Nothing else changed.
        var restored = sent
        restored.contentState.eventDescription = payload.contentState.eventDescription
        #expect(restored == payload)
    }

    @Test func cutDropsTrailingSpaceBeforeTheEllipsis() throws {
        let payload = try update(describedBy: "Power Panda strikes ", overLimitBy: 200)
        let description = try encoder.fitted(payload).payload.contentState.eventDescription
        #expect(!description.contains(" …"))
        #expect(description.hasSuffix("…"))
    }

    @Test func oversizedAttributesThrowNamingThem() throws {
        var attributes = Samples.attributes
        attributes.party += (1...60).map {
            HeroSummary(id: "hero-\($0)", name: "冒险者第\($0)号勇敢的英雄", avatar: "👩‍👩‍👧‍👦")
        }
        var payload = Samples.pushToStart
        payload.event = .start(attributes: attributes, alert: Samples.startAlert)
        payload.contentState.eventDescription = String(repeating: "🐼", count: 50)

        let report = try tooLargeReport { try encoder.encode(payload) }
        #expect(report.limit == 4096)
        #expect(report.largestPart?.name == "attributes")
        #expect(report.largestPart?.bytes == (try encoder.json(attributes).count))
        #expect(report.largestField?.name == "attributes.party")
        #expect(report.shortenedField == "content-state.eventDescription")
        #expect(report.parts.map(\.name) == ["attributes", "content-state", "alert"])

        var smallest = payload
        smallest.contentState.eventDescription = "…"
        #expect(report.bytes == (try encoder.json(smallest).count))
        #expect(report.excess == report.bytes - 4096)
        let message = report.description
        #expect(message.contains("`attributes`"))
        #expect(message.contains("4096-byte limit"))
        #expect(message.contains("\(report.excess) over"))
    }

    @Test func oversizedContentStateThrowsNamingTheHeroes() throws {
        var payload = Samples.updateLowPriority
        payload.contentState.heroes = (1...120).map {
            HeroStatus(id: "hero-with-a-long-identifier-\($0)", healthLevel: 0.123456789, isKnockedDown: false)
        }
        let report = try tooLargeReport { try encoder.encode(payload) }
        #expect(report.largestPart?.name == "content-state")
        #expect(report.largestField?.name == "content-state.heroes")
        #expect(report.description.contains("most of it `content-state.heroes`"))
    }

    @Test func oversizedAlertThrowsNamingItsBody() throws {
        var payload = Samples.updateWithAlert
        payload.event = .update(alert: Alert(
            title: .plain("Oh no"), body: .plain(String(repeating: "용사가 쓰러졌다! ", count: 250)), sound: "HeroDown.caf"))
        let report = try tooLargeReport { try encoder.encode(payload) }
        #expect(report.largestPart?.name == "alert")
        #expect(report.largestField?.name == "alert.body")
    }

    @Test func emptyDescriptionIsNotPaddedWithAnEllipsisBeforeFailing() throws {
        var payload = Samples.updateWithAlert
        payload.contentState.eventDescription = ""
        payload.contentState.latestEvent.args = [String(repeating: "🐳", count: 1100)]
        let report = try tooLargeReport { try encoder.encode(payload) }
        #expect(report.shortenedField == nil)
        #expect(report.largestField?.name == "content-state.latestEvent")
    }

    // MARK: - Push To Talk: a VoIP push, 5120 bytes

    @Test func pushToTalkMayExceedTheLiveActivityLimitUpToItsOwn() throws {
        var payload = Samples.pushToTalk
        payload.activeSpeaker?.playerName = String(repeating: "마", count: 1500)
        let body = try encoder.encode(payload)
        #expect(body.count > 4096)
        #expect(body.count <= PushToTalkPayload.sizeLimit)

        payload.activeSpeaker?.playerName = String(repeating: "마", count: 1800)
        let report = try tooLargeReport { try encoder.encode(payload) }
        #expect(report.payloadKind == "Push To Talk")
        #expect(report.limit == 5120)
        #expect(report.largestPart?.name == "activeSpeaker")
        #expect(report.largestField?.name == "activeSpeaker.playerName")
    }

    private func tooLargeReport(_ body: () throws -> Data) throws -> PayloadTooLarge {
        let error = #expect(throws: PayloadError.self) { _ = try body() }
        guard case .tooLarge(let report) = try #require(error) else {
            Issue.record("expected tooLarge, got \(String(describing: error))")
            throw error!
        }
        #expect(report.bytes > report.limit)
        return report
    }
}
