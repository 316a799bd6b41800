import Catalog
import Store

/// The string-catalog language for the locale an app reports (`Locale.current`
/// as a BCP 47 tag: "vi-VN", "ko", "zh-Hans-CN", "en-US", or with underscores).
/// Pushes are written in it; a language the catalog lacks falls back to English,
/// which every key has.
enum CatalogLanguage {
    static let fallback = "en"
    static let longestLocale = StoredValueLimits.longestLocale

    /// Nil when `locale` is not shaped like a language tag at all.
    static func forLocale(_ locale: String) -> String? {
        guard (1...longestLocale).contains(locale.utf8.count),
              locale.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_") })
        else { return nil }
        let subtags = locale.lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" }).map(String.init)
        guard let language = subtags.first, (2...3).contains(language.count), language.allSatisfy(\.isLetter) else { return nil }
        switch language {
        case "zh":
            // Simplified is the only Chinese the catalog has. Traditional (an explicit
            // Hant script, or a region that writes it) reads better in English than in
            // the other script.
            if subtags.contains("hans") { return "zh-Hans" }
            if subtags.contains("hant") || subtags.contains(where: { ["tw", "hk", "mo"].contains($0) }) { return fallback }
            return "zh-Hans"
        default:
            return StringCatalog.requiredLanguages.first { $0.lowercased() == language } ?? fallback
        }
    }
}
