import Catalog
import Foundation
import Game
@testable import Server
import Store
import Testing
import Vocabulary

/// openapi.yaml says exactly what the server accepts: its closed sets are the
/// content's and the catalog's, its limits are the server's constants, its
/// patterns accept exactly what the server's checks accept (tried on strings
/// made to sit on each side of every rule), and every operation lists the
/// refusals it can answer, each in the `Error` shape.
@Suite struct OpenAPIContractTests {
    let document: OpenAPIDocumentFile
    let content: LoadedContent

    init() throws {
        document = try OpenAPIDocumentFile.load()
        content = try LoadedContent.load(from: TestServer.contentDirectory)
    }

    private func enumeration(_ schema: [String: Any]?) -> [String] { schema?["enum"] as? [String] ?? [] }
    private func number(_ schema: [String: Any]?, _ key: String) -> Int? { schema?[key] as? Int }

    // MARK: - Closed sets

    @Test func theHeroesAreTheContentsHeroes() {
        #expect(enumeration(document.schema("HeroID")) == content.game.heroes.map(\.id.rawValue),
                "HeroID in openapi.yaml must list Content/heroes.json's heroes, in order")
    }

    @Test func theRoutesAreTheContentsRoutes() {
        #expect(enumeration(document.schema("RouteID")) == content.game.routes.map(\.id.rawValue),
                "RouteID in openapi.yaml must list Content/bosses.json's routes, in order")
    }

    @Test func theLanguagesAreTheCatalogs() {
        #expect(enumeration(document.schema("Language")) == StringCatalog.requiredLanguages)
    }

    @Test func theReportableStatusesAreTheServers() {
        #expect(enumeration(document.property("status", of: "ActivityStatusRequest"))
                == ActivityStatusRequest.ReportedStatus.allCases.map(\.rawValue))
    }

    // MARK: - Limits

    @Test func theLimitsAreTheServersConstants() throws {
        let start = "StartAdventureRequest"
        #expect(number(document.property("tickInterval", of: start), "minimum") == AdventureSetup.tickIntervals.lowerBound)
        #expect(number(document.property("tickInterval", of: start), "maximum") == AdventureSetup.tickIntervals.upperBound)
        #expect(number(document.property("timeLimit", of: start), "minimum") == 1)
        #expect(number(document.property("timeLimit", of: start), "maximum") == AdventureSetup.longestTimeLimit)
        #expect(number(document.property("heroes", of: "PickHeroesRequest"), "minItems") == 1)
        #expect(number(document.property("heroes", of: "PickHeroesRequest"), "maxItems") == HeroPicks.longest)
        #expect(number(document.schema("Name"), "maxLength") == StoredValueLimits.longestName)
        #expect(number(document.schema("ClientID"), "maxLength") == StoredValueLimits.longestClientID)
        #expect(number(document.schema("Locale"), "maxLength") == StoredValueLimits.longestLocale)
        let upload = try #require(document.operations.first { $0.fields["operationId"] as? String == "uploadTransmission" })
        let duration = (upload.fields["parameters"] as? [Any] ?? []).compactMap(document.resolved)
            .first { $0["name"] as? String == "durationMilliseconds" }
        let longest = Int(PushToTalkSettings().longestTransmission.components.seconds) * 1000
        #expect(number(document.resolved(duration?["schema"]), "maximum") == longest)
    }

    // MARK: - Patterns against the server's checks

    /// Whether `text` is valid for `schema` as far as strings go: JSON Schema's
    /// lengths count code points, its patterns are ECMA-262, where `$` is the end
    /// of the text (ICU's would also match before a final line feed, so the match
    /// must cover the whole text).
    private func documentAccepts(_ text: String, _ schema: [String: Any]) throws -> Bool {
        let length = text.unicodeScalars.count
        if let minimum = schema["minLength"] as? Int, length < minimum { return false }
        if let maximum = schema["maxLength"] as? Int, length > maximum { return false }
        guard let pattern = schema["pattern"] as? String else { return true }
        let expression = try NSRegularExpression(pattern: pattern)
        let whole = NSRange(location: 0, length: (text as NSString).length)
        return expression.firstMatch(in: text, range: whole)?.range == whole
    }

    private func expectSameVerdicts(_ schemaName: String, _ corpus: [String], server: (String) -> Bool) throws {
        let schema = try #require(document.schema(schemaName))
        #expect(schema["pattern"] != nil, "\(schemaName) has a pattern")
        for text in corpus {
            let documented = try documentAccepts(text, schema)
            #expect(documented == server(text),
                    "\(schemaName): \(text.unicodeScalars.map { String($0.value, radix: 16) }) document says \(documented)")
        }
    }

    /// Every Unicode space, line end and control character the rules draw lines between.
    static let edgeScalars: [Unicode.Scalar] = [
        "\u{0}", "\u{9}", "\u{A}", "\u{B}", "\u{C}", "\u{D}", "\u{1F}", "\u{20}", "\u{7F}", "\u{80}", "\u{85}", "\u{9F}",
        "\u{A0}", "\u{1680}", "\u{180E}", "\u{2000}", "\u{2005}", "\u{200A}", "\u{200B}", "\u{2028}", "\u{2029}",
        "\u{202F}", "\u{205F}", "\u{3000}", "\u{FEFF}",
    ]

    @Test func namesAreWhatTheStoreKeeps() throws {
        var corpus = ["", "Ana", "  Ana  ", "Ana Bao", String(repeating: "A", count: 64), String(repeating: "A", count: 65),
                      " " + String(repeating: "A", count: 63), " " + String(repeating: "A", count: 64),
                      String(repeating: "e\u{301}", count: 32), String(repeating: "e\u{301}", count: 32) + "x",
                      "🦸", String(repeating: "👨‍👩‍👧‍👦", count: 9), String(repeating: "👨‍👩‍👧‍👦", count: 10), "Mai 🐼", "Ana\r\n"]
        for scalar in Self.edgeScalars {
            let character = String(Character(scalar))
            corpus += [character, character + "Ana", "Ana" + character, "A" + character + "a", character + character]
        }
        try expectSameVerdicts("Name", corpus) { (try? StoredValueLimits.checkedName($0)) != nil }
    }

    @Test func clientIDsAreWhatTheStoreKeeps() throws {
        var corpus = ["", "a", "my phone", "ana/phone", "điện thoại 📱", "100%", String(repeating: "a", count: 128),
                      String(repeating: "a", count: 129), String(repeating: "ü", count: 128), String(repeating: "ü", count: 129),
                      String(repeating: "📱", count: 128), "line\n"]
        for scalar in Self.edgeScalars {
            let character = String(Character(scalar))
            corpus += [character, "id" + character, character + "id"]
        }
        try expectSameVerdicts("ClientID", corpus) {
            (try? StoredValueLimits.checkClientID($0, kind: "an id")) != nil
        }
    }

    @Test func localesAreWhatTheCatalogMaps() throws {
        let corpus = ["", "e", "en", "eng", "engl", "EN", "en-US", "en_US", "zh-Hans-CN", "zh_Hans_SG", "es-419", "de-CH-1996",
                      "en-", "-en", "_en", "en--US", "en-_US", "en-abcdefgh", "en-abcdefghi", "en-12345678", "1234", "en US",
                      "😀", "é", "en-US; DROP TABLE", "en-US\n", "en\u{301}",
                      "en" + String(repeating: "-abcdefgh", count: 3) + "-abcde",
                      "en" + String(repeating: "-abcdefgh", count: 3) + "-abcdef"]
        try expectSameVerdicts("Locale", corpus) { CatalogLanguage.forLocale($0) != nil }
    }

    @Test func inviteCodesAreWhatAPersonMayType() throws {
        let corpus = ["ABCD2345", "abcd2345", "abcd-2345", "ab cd 23 45", " - ABCDEFGH - ", "ABCD234", "ABCD23456",
                      "ABCD234O", "ABCD2341", "ABCDEFGI", "abcdefgl", "ßßßß", "ABCDEFG\u{17F}", "ＡＢＣＤ２３４５",
                      "ABCD\t2345", "ABCD_2345", "", "--------", "ABCD2345\n", "A\u{301}BCD2345"]
        try expectSameVerdicts("InviteCode", corpus) { InviteCode(typed: $0) != nil }
    }

    @Test func pushTokensAreWhatAPNsTakes() throws {
        let corpus = [String(repeating: "a", count: 14), String(repeating: "a", count: 16), String(repeating: "a", count: 17),
                      String(repeating: "Ab", count: 9), String(repeating: "0f", count: 256), String(repeating: "0f", count: 257),
                      String(repeating: "zz", count: 16), "", String(repeating: "ab", count: 16) + "\n",
                      String(repeating: "ab", count: 16) + " "]
        try expectSameVerdicts("PushToken", corpus) { PushToken.isWellFormed($0) }
    }

    // MARK: - Refusals, route by route

    @Test func everyOperationListsTheRefusalsItCanAnswer() throws {
        for operation in document.operations {
            let responses = operation.fields["responses"] as? [String: Any] ?? [:]
            let statuses = Set(responses.keys)
            func expectListed(_ status: String, _ why: String) {
                #expect(statuses.contains(status), "\(operation.name) does not list \(status), which \(why)")
            }
            let secured = (operation.fields["security"] as? [Any]).map { !$0.isEmpty } ?? true
            if secured { expectListed("401", "a missing key gets") }
            let body = (document.resolved(operation.fields["requestBody"])?["content"] as? [String: Any]) ?? [:]
            if body["application/json"] != nil {
                expectListed("400", "a body that is not a JSON object gets")
                expectListed("413", "a body over the limit gets")
                expectListed("422", "a field the operation cannot take gets")
            }
            let parameters = (operation.fields["parameters"] as? [Any] ?? []).compactMap(document.resolved)
            for parameter in parameters {
                let name = parameter["name"] as? String ?? "?"
                let schema = document.resolved(parameter["schema"]) ?? [:]
                switch parameter["in"] as? String {
                case "path":
                    expectListed("400", "a path parameter '\(name)' that is not percent-encoded UTF-8 gets")
                    if schema["format"] as? String == "uuid" {
                        expectListed("404", "an id '\(name)' that names nothing gets")
                    } else {
                        expectListed("422", "a path parameter '\(name)' out of its schema gets")
                    }
                case "query":
                    expectListed("422", "a query parameter '\(name)' out of its schema gets")
                default:
                    break
                }
            }
            for (status, response) in responses where status.hasPrefix("4") || status.hasPrefix("5") {
                let content = document.resolved(response)?["content"] as? [String: Any]
                let json = document.resolved(content?["application/json"])
                #expect(json?["schema"] as? [String: String] == ["$ref": "#/components/schemas/Error"],
                        "\(operation.name) \(status) is not the Error shape")
            }
        }
    }

    @Test func theAnswersToWhatNoRouteTakesAreDescribed() throws {
        for name in ["UnknownPath", "MethodNotAllowed"] {
            let response = try #require(document.component("responses/\(name)"))
            let json = (response["content"] as? [String: Any])?["application/json"] as? [String: Any]
            #expect(json?["schema"] as? [String: String] == ["$ref": "#/components/schemas/Error"])
        }
        #expect((document.component("responses/MethodNotAllowed")?["headers"] as? [String: Any])?["Allow"] != nil)
        let description = (document.root["info"] as? [String: Any])?["description"] as? String ?? ""
        for promise in ["404 `notFound`", "405 `methodNotAllowed`", "`Allow`", "422 `invalidField`", "percent-decoded"] {
            #expect(description.contains(promise), "info.description says \(promise)")
        }
    }
}
