import Foundation
import Game
import Testing

/// The store writes states and events with `CanonicalJSON` instead of `JSONEncoder`;
/// what it writes must stay exactly what `JSONEncoder` with sorted keys writes, so
/// that stored rows read back through `Codable` and compare as text.
@Suite struct CanonicalJSONTests {
    static func sortedKeysEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }

    @Test func everyEventIsWrittenAsJSONEncoderWritesIt() throws {
        let encoder = Self.sortedKeysEncoder()
        let awkward: [GameEvent] = [
            .potionUsed(player: "o'brien \"the\" / \\ \u{1}\n💥", hero: "power-panda", amount: -3),
            .damageDealt(hero: "h", boss: "b", amount: Int.max, blocked: Int.min),
        ]
        for event in GameEvent.everyVariant + awkward {
            let text = CanonicalJSON.text(of: event)
            #expect(text == String(decoding: try encoder.encode(event), as: UTF8.self))
            #expect(try JSONDecoder().decode(GameEvent.self, from: Data(text.utf8)) == event)
        }
    }

    @Test func everyStateOfWholeAdventuresIsWrittenAsJSONEncoderWritesIt() throws {
        let encoder = Self.sortedKeysEncoder()
        var compared = 0
        for route in Fixtures.content.routes.map(\.id) {
            for seed: UInt64 in [1, 7, .max] {
                let adventure = try Fixtures.adventure(seed: seed, route: route)
                let states = [adventure.start()] + Fixtures.play(adventure).map(\.state)
                for state in states {
                    let text = CanonicalJSON.text(of: state)
                    #expect(text == String(decoding: try encoder.encode(state), as: UTF8.self))
                    #expect(try JSONDecoder().decode(AdventureState.self, from: Data(text.utf8)) == state)
                    compared += 1
                }
            }
        }
        // Whole adventures: every status, knocked-down heroes, every boss phase.
        #expect(compared > 1_000)
    }

    @Test func namesThatNeedEscapingAreEscapedAsJSONEncoderDoes() throws {
        let party = [PartyMember(player: "a/b \"c\" \\ \u{7f} é 🐼", hero: "power-panda")]
        let state = try Fixtures.adventure(party: party).start()
        let text = CanonicalJSON.text(of: state)
        #expect(text == String(decoding: try Self.sortedKeysEncoder().encode(state), as: UTF8.self))
        #expect(try JSONDecoder().decode(AdventureState.self, from: Data(text.utf8)) == state)
    }
}
