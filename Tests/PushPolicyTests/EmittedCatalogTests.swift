import Catalog
import Foundation
import PushPolicy
import Testing

/// Everything the policy can put in an alert exists in the shipped content:
/// enumerated from the policy itself, so a new alert can't be forgotten here.
@Suite struct EmittedCatalogTests {
    /// The languages of the source documents.
    static let languages = ["en", "vi", "ko", "zh-Hans"]

    static let catalogFile = PolicyFixtures.contentDirectory.appendingPathComponent("Localizable.xcstrings")
    static let soundsFolder = PolicyFixtures.contentDirectory.appendingPathComponent("Sounds")

    /// The catalog read straight from the file, not through the Catalog module,
    /// so a bug in its loader can't hide a missing translation.
    static func shippedTexts() throws -> [String: [String: String]] {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: catalogFile)) as? [String: Any]
        let strings = try #require(json?["strings"] as? [String: Any])
        var texts: [String: [String: String]] = [:]
        for (key, entry) in strings {
            let localizations = (entry as? [String: Any])?["localizations"] as? [String: Any] ?? [:]
            for (language, localization) in localizations {
                let unit = (localization as? [String: Any])?["stringUnit"] as? [String: Any]
                if let value = unit?["value"] as? String { texts[key, default: [:]][language] = value }
            }
        }
        return texts
    }

    @Test func policyNamesSomeTextsAndSounds() {
        #expect(PushPolicy.emittedTexts.count >= 2 * 5)
        #expect(!PushPolicy.emittedSounds.isEmpty)
        #expect(Set(PushPolicy.emittedTexts.map(\.key)).count == PushPolicy.emittedTexts.count, "a key listed twice")
    }

    @Test func everyEmittedKeyIsTranslatedWithItsArguments() throws {
        let texts = try Self.shippedTexts()
        for (key, arguments) in PushPolicy.emittedTexts {
            for language in Self.languages {
                guard let text = texts[key]?[language] else {
                    Issue.record("\(key) has no \(language) text in Localizable.xcstrings")
                    continue
                }
                let positions = try Placeholder.positions(in: text)
                #expect(Set(positions.keys) == Set((0..<arguments).map { $0 + 1 }),
                        "\(key) [\(language)] \"\(text)\" takes \(positions.count) arguments, the policy sends \(arguments)")
                #expect(positions.values.allSatisfy { $0 == "@" }, "\(key) [\(language)]: loc-args are strings, use %@")
            }
        }
    }

    /// The same, through the catalog as the server loads it.
    @Test func loadedCatalogAgrees() {
        for (key, _) in PushPolicy.emittedTexts {
            for language in Self.languages {
                #expect(PolicyFixtures.strings.text(key, language: language) != nil, "\(key) [\(language)]")
            }
        }
    }

    @Test func everyEmittedSoundIsShipped() {
        for sound in PushPolicy.emittedSounds {
            let file = Self.soundsFolder.appendingPathComponent(sound)
            #expect(FileManager.default.fileExists(atPath: file.path), "\(sound) is not in Content/Sounds")
            // Loaded and checked as an alert sound (playable encoding, under 30 s).
            #expect(PolicyFixtures.loaded.sounds[sound] != nil, "\(sound) is not a usable alert sound")
        }
    }
}
