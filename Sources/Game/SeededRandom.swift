import Vocabulary

/// The game's own random number generator: xoshiro256** seeded through SplitMix64.
///
/// The standard library's `random(in:using:)` is not specified to stay the same
/// across Swift versions, and a saved adventure must replay to the same events
/// forever, so every draw the game makes goes through the methods below, which
/// use only fixed-width integer arithmetic.
public struct SeededRandom: Hashable, Sendable, Codable {
    private var s0, s1, s2, s3: UInt64

    /// The generator's state in its coded order, for `CanonicalJSON`.
    var words: (UInt64, UInt64, UInt64, UInt64) { (s0, s1, s2, s3) }

    public init(seed: UInt64) {
        var splitMix = SplitMix64(seed: seed)
        s0 = splitMix.next(); s1 = splitMix.next(); s2 = splitMix.next(); s3 = splitMix.next()
    }

    public mutating func next() -> UInt64 {
        let result = rotateLeft(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = rotateLeft(s3, 45)
        return result
    }

    /// A uniform integer in `0..<bound` (Lemire's multiply-and-reject, unbiased).
    public mutating func int(below bound: Int) -> Int {
        precondition(bound > 0, "bound must be positive")
        let range = UInt64(bound)
        var product = next().multipliedFullWidth(by: range)
        if product.low < range {
            let threshold = (0 &- range) % range
            while product.low < threshold {
                product = next().multipliedFullWidth(by: range)
            }
        }
        return Int(product.high)
    }

    /// A uniform integer in the closed range.
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + int(below: range.upperBound - range.lowerBound + 1)
    }

    /// True with a probability of `perMille` / 1000.
    public mutating func chance(perMille: Int) -> Bool {
        int(below: 1000) < perMille
    }

    private func rotateLeft(_ x: UInt64, _ k: UInt64) -> UInt64 {
        (x << k) | (x >> (64 - k))
    }
}
