import Crypto
import Foundation

/// A player's bearer key: `rk_` and 32 random bytes in base64url. Handed out once;
/// only its SHA-256 is stored, so a copy of the database lets no one act as a player.
/// A plain hash (no salt, no slow KDF) is enough because the key is 256 random
/// bits, not a password someone could guess.
enum APIKey {
    static let prefix = "rk_"
    /// 32 bytes in base64url without padding.
    static let encodedLength = 43

    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return prefix + base64URL(bytes)
    }

    /// Nil for anything that cannot be a key, so a malformed header costs no query.
    static func hash(ofPresented key: String) -> Data? {
        guard key.hasPrefix(prefix), key.utf8.count == prefix.utf8.count + encodedLength else { return nil }
        return hash(key)
    }

    static func hash(_ key: String) -> Data { Data(SHA256.hash(data: Data(key.utf8))) }

    /// Compares every byte whatever the first difference, so the time taken says
    /// nothing about how much of a hash matched.
    static func constantTimeEqual(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }

    private static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
