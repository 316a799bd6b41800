import Foundation
import NIOConcurrencyHelpers
import PushVocabulary

/// Makes the `apns-id` of each push: a version 4 UUID, unique within the process
/// and unpredictable across processes, without a system call per push.
///
/// Drawing 128 bits from the system generator for every push cost two
/// `getrandom` calls (about 2 % of the sender's CPU). Instead two random keys are
/// drawn once, and push n gets SplitMix64(key₀ + n) and SplitMix64(key₁ + n):
/// SplitMix64's finalizer is a bijection, so no two pushes of this process share
/// an id, and without the keys the ids of another process cannot be told.
/// The id is what APNs echoes and de-duplicates by, not a secret.
final class APNsIDSource: @unchecked Sendable {
    private let keys: (UInt64, UInt64)
    private let lock = NIOLock()
    private var counter: UInt64 = 0  // lock

    init() {
        var system = SystemRandomNumberGenerator()
        keys = (system.next(), system.next())
    }

    func next() -> UUID {
        let n = lock.withLock {
            counter &+= 1
            return counter
        }
        var words = (SplitMix64.mix(keys.0 &+ n), SplitMix64.mix(keys.1 &+ n))
        return withUnsafeMutableBytes(of: &words) { bytes in
            bytes[6] = bytes[6] & 0x0F | 0x40  // version 4
            bytes[8] = bytes[8] & 0x3F | 0x80  // RFC 4122 variant
            return UUID(uuid: bytes.loadUnaligned(as: uuid_t.self))
        }
    }

    /// `uuid.uuidString.lowercased()` without the two intermediate strings.
    static func lowercasedText(_ uuid: UUID) -> String {
        withUnsafeBytes(of: uuid.uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { text in
                func digit(_ value: UInt8) -> UInt8 { value < 10 ? 0x30 + value : 0x57 + value }
                var offset = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        text[offset] = UInt8(ascii: "-")
                        offset += 1
                    }
                    text[offset] = digit(byte >> 4)
                    text[offset + 1] = digit(byte & 0x0F)
                    offset += 2
                }
                return offset
            }
        }
    }
}
