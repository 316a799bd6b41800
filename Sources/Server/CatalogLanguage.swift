import Catalog
import Store

/// The string-catalog language for the locale an app reports (`Locale.current`
/// as a BCP 47 tag: "vi-VN", "ko", "zh-Hans-CN", "en-US", or with underscores).
/// Pushes are written in it; a language the catalog lacks falls back to English,
/// which every key has.
enum CatalogLanguage {
    static let fallback = "en"
    static let longestLocale = StoredValueLimits.longestLocale

    /// Nil when `locale` is not a language tag: 2–3 letters of language, then
    /// subtags of 1–8 letters or digits after a dash or an underscore, at most
    /// `longestLocale` characters in all. The `Locale` schema of openapi.yaml
    /// says the same (a test holds the two together).
    static func forLocale(_ locale: String) -> String? {
        guard locale.utf8.count <= longestLocale, locale.unicodeScalars.allSatisfy(\.isASCII),
              locale.wholeMatch(of: /[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*/) != nil
        else { return nil }
        let subtags = locale.lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" }).map(String.init)
        switch subtags[0] {
        case "zh":
            // Simplified is the only Chinese the catalog has. Traditional (an explicit
            // Hant script, or a region that writes it) reads better in English than in
            // the other script.
            if subtags.contains("hans") { return "zh-Hans" }
            if subtags.contains("hant") || subtags.contains(where: { ["tw", "hk", "mo"].contains($0) }) { return fallback }
            return "zh-Hans"
        case let language:
            return StringCatalog.requiredLanguages.first { $0.lowercased() == language } ?? fallback
        }
    }
}
