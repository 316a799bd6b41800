@testable import Catalog
import Game
import Testing

@Suite struct StringCatalogTests {
    let catalog = StringCatalog(sourceLanguage: "en", entries: [
        "event.damageDealt": ["en": "%1$@ hits %2$@ for %3$@ damage", "vi": "%1$@ gây %3$@ sát thương lên %2$@"],
        "plain": ["en": "%@ and %@, 100%%"],
    ])

    @Test func fillsPositionalArgumentsInEachLanguagesOrder() {
        let text = LocalizedText(key: "event.damageDealt", args: ["Spouty", "Kraken", "42"])
        #expect(catalog.format(text, language: "en") == "Spouty hits Kraken for 42 damage")
        #expect(catalog.format(text, language: "vi") == "Spouty gây 42 sát thương lên Kraken")
    }

    @Test func fillsSequentialArgumentsAndPercent() {
        #expect(catalog.format(LocalizedText(key: "plain", args: ["a", "b"]), language: "en") == "a and b, 100%")
    }

    @Test func fallsBackToSourceLanguageThenKey() {
        let text = LocalizedText(key: "event.damageDealt", args: ["A", "B", "1"])
        #expect(catalog.format(text, language: "ko") == "A hits B for 1 damage")
        #expect(catalog.format(LocalizedText(key: "nope"), language: "en") == "nope")
    }

    @Test func keepsAStrayPercentAndTheTextAroundPlaceholdersAsWritten() {
        #expect(StringCatalog.fill("50% off for %@", with: ["Egghead"]) == "50% off for Egghead")
        #expect(StringCatalog.fill("%@님, 100%", with: ["판다"]) == "판다님, 100%")
        #expect(StringCatalog.fill("Chiến thắng! %2$@ và %1$@.", with: ["A", "B"]) == "Chiến thắng! B và A.")
        #expect(StringCatalog.fill("%@ 出发挑战 %@", with: ["熊猫"]) == "熊猫 出发挑战 ")
        #expect(StringCatalog.fill("", with: []) == "")
    }

    @Test func parsesPlaceholders() throws {
        #expect(try Placeholder.positions(in: "%2$@ x %1$@") == [1: "@", 2: "@"])
        #expect(try Placeholder.positions(in: "%@ %lld %%") == [1: "@", 2: "d"])
        #expect(throws: Placeholder.ParseError.self) { try Placeholder.all(in: "50% off") }
        #expect(throws: Placeholder.ParseError.self) { try Placeholder.positions(in: "%1$@ %1$d") }
        #expect(try Placeholder.all(in: "%3$-5.2f, %12$lld, %%, %s") == [Placeholder(position: 3, conversion: "f"),
                                                                        Placeholder(position: 12, conversion: "d"),
                                                                        Placeholder(position: nil, conversion: "s")])
        #expect(throws: Placeholder.ParseError.self) { try Placeholder.all(in: "%0$@") }
        #expect(throws: Placeholder.ParseError.self) { try Placeholder.all(in: "%99999999999999999999$@") }
        #expect(throws: Placeholder.ParseError.self) { try Placeholder.all(in: "%1$") }
        #expect(throws: Placeholder.ParseError.self) { try Placeholder.all(in: "100%") }
    }
}
