import Foundation

/// Base64url without padding (RFC 4648 §5), as JWTs and API keys use it.
public enum Base64URL {
    public static func encode(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Nil for text that is not unpadded base64url (padding is refused, as JWS requires).
    public static func decode(_ text: some StringProtocol) -> Data? {
        guard !text.isEmpty, !text.contains("=") else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}

/// Compares a secret (a key, a hash) with what was presented, looking at every
/// byte of the secret whatever the first difference, so the time taken says nothing
/// about how much of a guess was right, nor how long the secret is.
public func constantTimeEqual(expected: some Collection<UInt8>, given: some Collection<UInt8>) -> Bool {
    let expected = Array(expected)
    let given = Array(given)
    var difference = UInt8(truncatingIfNeeded: expected.count ^ given.count)
    for index in expected.indices {
        difference |= expected[index] ^ (index < given.count ? given[index] : 0)
    }
    return difference == 0 && expected.count == given.count
}
