import Crypto
import Foundation
import Vocabulary

/// A player's bearer key: `rk_` and 32 random bytes in base64url. Handed out once;
/// only its SHA-256 is stored, so a copy of the database lets no one act as a player.
/// A plain hash (no salt, no slow KDF) is enough because the key is 256 random
/// bits, not a password someone could guess.
public enum APIKey {
    public static let prefix = "rk_"
    /// 32 bytes in base64url without padding.
    public static let encodedLength = 43

    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return prefix + Base64URL.encode(bytes)
    }

    /// Nil for anything that cannot be a key, so a malformed header costs no query.
    public static func hash(ofPresented key: String) -> Data? {
        guard key.hasPrefix(prefix), key.utf8.count == prefix.utf8.count + encodedLength else { return nil }
        return hash(key)
    }

    public static func hash(_ key: String) -> Data { Data(SHA256.hash(data: Data(key.utf8))) }
}
