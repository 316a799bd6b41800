import Foundation
import Game
import Store
import Vocabulary

// How a request body's fields are checked: each field that takes less than its
// JSON type is declared `@Checked<Rule>`, and the rule runs while the body is
// decoded. A refusal then carries the decoder's own path to the value
// (`heroes[1]`, `name`), which the API answers as 422 `invalidField`; no handler
// names a field by hand. Each rule is what openapi.yaml says of that field.

/// What one field accepts: its JSON value (`Raw`), checked and turned into what
/// the handler uses. `userInfo` is the decoder's, with the content's ids.
protocol FieldRule {
    associatedtype Raw: Decodable
    associatedtype Value
    /// Throws `FieldProblem` when the value is not acceptable; any other error
    /// is the answer as it is (a server-made id that names nothing is a 404).
    static func check(_ raw: Raw, _ userInfo: [CodingUserInfoKey: Any]) throws -> Value
    /// What a JSON value must be to be read as `Raw` at all.
    static var rawDescription: String { get }
}

extension FieldRule {
    static var rawDescription: String { "a \(Raw.self)" }
}

/// What is wrong with a field's value, said of the value ("there is no hero 'x'").
struct FieldProblem: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

@propertyWrapper
struct Checked<Rule: FieldRule>: Decodable {
    var wrappedValue: Rule.Value

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let raw: Rule.Raw
        do {
            raw = try container.decode(Rule.Raw.self)
        } catch let error as DecodingError {
            throw error
        } catch {
            // Foundation's own error for a number that does not fit the type (1.5 for
            // an Int, -1 for a UInt64), which its decoder would report as invalid JSON
            // without the value's path.
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "should be \(Rule.rawDescription)")
        }
        do {
            wrappedValue = try Rule.check(raw, decoder.userInfo)
        } catch let problem as FieldProblem {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: problem.message)
        }
    }
}

/// The content's ids a request may name, handed to the decoder: heroes and routes
/// are closed sets, and the API document lists the same ones (a test compares).
struct ContentVocabulary: Sendable {
    static let userInfoKey = CodingUserInfoKey(rawValue: "rangers.contentVocabulary")!

    let heroes: [HeroID]
    let routes: [RouteID]

    init(_ content: GameContent) {
        heroes = content.heroes.map(\.id)
        routes = content.routes.map(\.id)
    }

    static func from(_ userInfo: [CodingUserInfoKey: Any]) throws -> ContentVocabulary {
        guard let vocabulary = userInfo[userInfoKey] as? ContentVocabulary else { throw Missing() }
        return vocabulary
    }

    /// A decoder made without it: the server's mistake, not the client's, so the
    /// error middleware logs it and answers 500.
    struct Missing: Error, CustomStringConvertible {
        var description: String { "a request decoder was made without the content's vocabulary" }
    }
}

// MARK: - Rules

/// A player's or a party's name: `StoredValueLimits.checkedName`, trimmed.
enum DisplayName: FieldRule {
    static func check(_ raw: String, _ userInfo: [CodingUserInfoKey: Any]) throws -> String {
        do {
            return try StoredValueLimits.checkedName(raw)
        } catch {
            throw FieldProblem("is refused: \(error.description)")
        }
    }
}

/// An id of the content's: heroes and routes are closed sets.
protocol ContentIdentifier: StringIdentifier {
    /// What a refusal calls one: "a hero".
    static var kind: String { get }
    static var inContent: KeyPath<ContentVocabulary, [Self]> { get }
}

extension HeroID: ContentIdentifier {
    static var kind: String { "a hero" }
    static var inContent: KeyPath<ContentVocabulary, [HeroID]> { \.heroes }
}

extension RouteID: ContentIdentifier {
    static var kind: String { "a route" }
    static var inContent: KeyPath<ContentVocabulary, [RouteID]> { \.routes }
}

/// One of the content's ids of its kind; the refusal lists them.
enum InTheContent<ID: ContentIdentifier>: FieldRule {
    static func check(_ raw: String, _ userInfo: [CodingUserInfoKey: Any]) throws -> ID {
        let known = try ContentVocabulary.from(userInfo)[keyPath: ID.inContent]
        guard known.contains(ID(raw)) else {
            throw FieldProblem("is not \(ID.kind): '\(raw.prefix(64))' is none of \(known.map(\.rawValue).joined(separator: ", "))")
        }
        return ID(raw)
    }
}

typealias KnownHero = InTheContent<HeroID>
typealias KnownRoute = InTheContent<RouteID>

/// The heroes a player picks: 1…`longest` of the content's, repeats allowed.
enum HeroPicks: FieldRule {
    static let longest = 32

    static func check(_ raw: [Checked<KnownHero>], _ userInfo: [CodingUserInfoKey: Any]) throws -> [HeroID] {
        guard (1...longest).contains(raw.count) else { throw FieldProblem("must list 1…\(longest) heroes, not \(raw.count)") }
        return raw.map(\.wrappedValue)
    }
}

/// An APNs token in hex, as the app formats it.
enum HexPushToken: FieldRule {
    static func check(_ raw: String, _ userInfo: [CodingUserInfoKey: Any]) throws -> PushToken {
        do {
            return try PushToken(hex: raw)
        } catch {
            throw FieldProblem("is not a push token: \(error.description)")
        }
    }
}

/// `Locale.current.identifier` as the app sends it, kept as the catalog language
/// its pushes are written in.
enum LocaleTag: FieldRule {
    static func check(_ raw: String, _ userInfo: [CodingUserInfoKey: Any]) throws -> String {
        guard let language = CatalogLanguage.forLocale(raw) else {
            throw FieldProblem("must be a language tag like 'en-US', 'vi-VN' or 'zh-Hans-CN', at most \(CatalogLanguage.longestLocale) characters")
        }
        return language
    }
}

/// An invite code as a person types it: 8 characters of the code's alphabet, any
/// case, spaces and dashes anywhere.
enum TypedInviteCode: FieldRule {
    static func check(_ raw: String, _ userInfo: [CodingUserInfoKey: Any]) throws -> InviteCode {
        guard let code = InviteCode(typed: raw) else {
            throw FieldProblem("is not an invite code: \(TypedCodeAlphabet.length) letters and digits, without 0, 1, I or O")
        }
        return code
    }
}

/// A follow code as a person types it, like an invite code.
enum TypedFollowCode: FieldRule {
    static func check(_ raw: String, _ userInfo: [CodingUserInfoKey: Any]) throws -> FollowCode {
        guard let code = FollowCode(typed: raw) else {
            throw FieldProblem("is not a follow code: \(TypedCodeAlphabet.length) letters and digits, without 0, 1, I or O")
        }
        return code
    }
}

/// An id, checked as `RequestIdentifier` says: the same rule as in a path.
enum Identifier<ID: RequestIdentifier>: FieldRule {
    static func check(_ raw: String, _ userInfo: [CodingUserInfoKey: Any]) throws -> ID {
        try ID.checked(raw) { problem in FieldProblem(problem) }
    }
}

/// A JSON number that is whole and fits `Number` (`273.0` is 273); the decoder
/// checks it, `Checked` names the field when it does not fit.
enum WholeNumber<Number: FixedWidthInteger & Decodable>: FieldRule {
    static var rawDescription: String { "a whole number from \(Number.min) to \(Number.max)" }
    static func check(_ raw: Number, _ userInfo: [CodingUserInfoKey: Any]) throws -> Number { raw }
}

/// One of an enumeration's raw values; the refusal lists them.
enum OneOf<Value: RawRepresentable & CaseIterable>: FieldRule where Value.RawValue == String {
    static func check(_ raw: String, _ userInfo: [CodingUserInfoKey: Any]) throws -> Value {
        guard let value = Value(rawValue: raw) else {
            throw FieldProblem("must be one of \(Value.allCases.map(\.rawValue).joined(separator: ", ")), not '\(raw.prefix(64))'")
        }
        return value
    }
}
