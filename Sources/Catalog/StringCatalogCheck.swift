import Game

/// Every text the server can send must exist in every language with the same
/// placeholders, or a phone shows a raw key or crashes its formatter.
enum StringCatalogCheck {
    static func problems(in catalog: StringCatalog, file: String) -> [ContentProblem] {
        var problems: [ContentProblem] = []
        func report(_ location: String, _ message: String) {
            problems.append(ContentProblem(file: file, location: location, message: message))
        }
        if catalog.sourceLanguage != "en" {
            report("sourceLanguage", "is '\(catalog.sourceLanguage)', expected 'en'")
        }
        for key in catalog.keys {
            let texts = catalog.entries[key] ?? [:]
            var reference: (language: String, positions: [Int: Character])?
            for language in StringCatalog.requiredLanguages {
                let location = "\(key) [\(language)]"
                guard let text = texts[language] else {
                    report(location, "translation is missing")
                    continue
                }
                if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                    report(location, "translation is empty")
                }
                let positions: [Int: Character]
                do {
                    positions = try Placeholder.positions(in: text)
                } catch {
                    report(location, error.description)
                    continue
                }
                // loc-args reach the phone as strings, so only %@ can take them.
                for (position, conversion) in positions.sorted(by: { $0.key < $1.key }) where conversion != "@" {
                    report(location, "argument \(position) is %\(conversion); arguments are strings, use %@")
                }
                if positions.keys.count > 0, positions.keys.max() != positions.keys.count {
                    report(location, "placeholders skip a position: \(positions.keys.sorted())")
                }
                if let reference {
                    if Set(reference.positions.keys) != Set(positions.keys) {
                        report(location, "has \(positions.count) placeholder(s), \(reference.language) has \(reference.positions.count)")
                    }
                } else {
                    reference = (language, positions)
                }
            }
        }
        for event in GameEvent.everyVariant {
            let text = event.text(heroName: \.rawValue, bossName: \.rawValue)
            requireKey(text.key, argumentCount: text.args.count, in: catalog, report: report)
        }
        return problems
    }

    /// Reports a key the server emits that is missing, or that takes a different
    /// number of arguments than the server gives it.
    static func requireKey(_ key: String, argumentCount: Int, in catalog: StringCatalog,
                           report: (String, String) -> Void) {
        guard let source = catalog.text(key, language: catalog.sourceLanguage) else {
            report(key, "is missing; the server emits it")
            return
        }
        guard let positions = try? Placeholder.positions(in: source) else { return }
        if positions.count != argumentCount {
            report(key, "takes \(positions.count) argument(s), the server gives \(argumentCount)")
        }
    }
}
