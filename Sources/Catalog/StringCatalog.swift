import Foundation
import Game

/// Content/Localizable.xcstrings, Apple's String Catalog: the same file the iOS app
/// ships, so a `loc-key` the server sends is one the phone can look up.
public struct StringCatalog: Sendable {
    /// The languages of the source documents; every key must exist in each.
    public static let requiredLanguages = ["en", "vi", "ko", "zh-Hans"]

    public let sourceLanguage: String
    /// key → language → text
    public let entries: [String: [String: String]]

    public init(sourceLanguage: String, entries: [String: [String: String]]) {
        self.sourceLanguage = sourceLanguage
        self.entries = entries
    }

    public var keys: [String] { entries.keys.sorted() }

    public func text(_ key: String, language: String) -> String? { entries[key]?[language] }

    /// The text in `language`, or in the source language where it has none, as the
    /// phone falls back.
    public func textOrSource(_ key: String, language: String) -> String? {
        text(key, language: language) ?? text(key, language: sourceLanguage)
    }

    /// The text in `language` (or the source language) with its placeholders filled.
    /// A key missing from the catalog comes out as the key itself, as on the phone.
    public func format(_ text: LocalizedText, language: String) -> String {
        guard let template = textOrSource(text.key, language: language) else { return text.key }
        return Self.fill(template, with: text.args)
    }

    /// Replaces `%@`, `%1$@`, `%d` … with the arguments as strings, and `%%` with `%`.
    /// The text between placeholders is copied a run at a time, found by its bytes:
    /// `%` is ASCII, and walking every character of a Korean or Vietnamese text
    /// cost tens of thousands of instructions a push (a sixth of the push policy's).
    static func fill(_ template: String, with args: [String]) -> String {
        var output = ""
        output.reserveCapacity(template.utf8.count + args.reduce(0) { $0 + $1.utf8.count })
        var next = 0
        var literal = template.startIndex, searched = template.startIndex
        while let percent = template.utf8[searched...].firstIndex(of: UInt8(ascii: "%")) {
            searched = template.utf8.index(after: percent)
            // A '%' that starts no placeholder is text like the rest.
            guard let spec = try? Placeholder.parse(template, at: percent) else { continue }
            output += template[literal..<percent]
            if let placeholder = spec.placeholder {
                let position = placeholder.position ?? next + 1
                next = position
                output += position <= args.count ? args[position - 1] : ""
            } else {
                output += "%"
            }
            literal = spec.end
            searched = spec.end
        }
        output += template[literal...]
        return output
    }
}

/// A `%…` conversion in a catalog string.
public struct Placeholder: Hashable, Sendable, CustomStringConvertible {
    /// 1-based argument position when written as `%2$@`.
    public var position: Int?
    public var conversion: Character

    public var description: String {
        position.map { "%\($0)$\(conversion)" } ?? "%\(conversion)"
    }

    public struct ParseError: Error, CustomStringConvertible {
        public var description: String
    }

    /// All placeholders of `template`, in order; `%%` is not one.
    public static func all(in template: String) throws(ParseError) -> [Placeholder] {
        var result: [Placeholder] = []
        var index = template.startIndex
        while index < template.endIndex {
            if template[index] == "%" {
                let spec = try parse(template, at: index)
                if let placeholder = spec.placeholder { result.append(placeholder) }
                index = spec.end
            } else {
                index = template.index(after: index)
            }
        }
        return result
    }

    /// The arguments each position takes, with implicit positions numbered as printf does.
    public static func positions(in template: String) throws(ParseError) -> [Int: Character] {
        var byPosition: [Int: Character] = [:]
        var next = 0
        for placeholder in try all(in: template) {
            let position = placeholder.position ?? next + 1
            next = position
            if let earlier = byPosition[position], earlier != placeholder.conversion {
                throw ParseError(description: "argument \(position) is used as both %\(earlier) and %\(placeholder.conversion)")
            }
            byPosition[position] = placeholder.conversion
        }
        return byPosition
    }

    /// The placeholder that starts at the `%` at `start`. Its syntax is ASCII, so
    /// it is read by byte: by `Character` it cost some 9,000 instructions a
    /// placeholder, and every push fills one or two.
    fileprivate static func parse(_ s: String, at start: String.Index) throws(ParseError) -> (placeholder: Placeholder?, end: String.Index) {
        let utf8 = s.utf8
        var i = utf8.index(after: start)
        guard i < utf8.endIndex else { throw ParseError(description: "'%' at the end of the text") }
        if utf8[i] == UInt8(ascii: "%") { return (nil, utf8.index(after: i)) }
        var position: Int?
        var value = 0, digits = 0, overflowed = false
        var j = i
        while j < utf8.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(utf8[j]) {
            let (times10, over1) = value.multipliedReportingOverflow(by: 10)
            let (sum, over2) = times10.addingReportingOverflow(Int(utf8[j] - UInt8(ascii: "0")))
            (value, overflowed, digits) = (sum, overflowed || over1 || over2, digits + 1)
            j = utf8.index(after: j)
        }
        if digits > 0, j < utf8.endIndex, utf8[j] == UInt8(ascii: "$") {
            guard !overflowed, value > 0 else { throw ParseError(description: "placeholder position must start at 1") }
            position = value
            i = utf8.index(after: j)
        }
        // No space flag: "50% off" is far more likely a stray percent than "% o".
        while i < utf8.endIndex, "-+#0123456789.".utf8.contains(utf8[i]) { i = utf8.index(after: i) }
        while i < utf8.endIndex, "hlqLzjt".utf8.contains(utf8[i]) { i = utf8.index(after: i) }
        guard i < utf8.endIndex, "@dDiuUxXoOfFeEgGcCsSpaA".utf8.contains(utf8[i]) else {
            throw ParseError(description: "'%' is not followed by a valid placeholder (write '%%' for a percent sign)")
        }
        return (Placeholder(position: position, conversion: Character(Unicode.Scalar(utf8[i]))), utf8.index(after: i))
    }
}

extension StringCatalog {
    private struct File: Decodable {
        var sourceLanguage: String
        var version: String
        var strings: [String: Entry]
    }

    private struct Entry: Decodable {
        var localizations: [String: Localization]?
    }

    private struct Localization: Decodable {
        var stringUnit: StringUnit?
    }

    private struct StringUnit: Decodable {
        var value: String
    }

    /// Decodes an `.xcstrings` file. Entries without a plain string unit (plural
    /// variations) are reported, since the server fills only `%@` arguments.
    public static func decode(_ data: Data, file: String) throws -> (StringCatalog, [ContentProblem]) {
        let decoded = try JSONDecoder().decode(File.self, from: data)
        var problems: [ContentProblem] = []
        var entries: [String: [String: String]] = [:]
        for (key, entry) in decoded.strings {
            var texts: [String: String] = [:]
            for (language, localization) in entry.localizations ?? [:] {
                if let unit = localization.stringUnit {
                    texts[language] = unit.value
                } else {
                    problems.append(ContentProblem(file: file, location: "\(key) [\(language)]",
                                                   message: "has no plain stringUnit (variations are not supported)"))
                }
            }
            entries[key] = texts
        }
        return (StringCatalog(sourceLanguage: decoded.sourceLanguage, entries: entries), problems)
    }
}
