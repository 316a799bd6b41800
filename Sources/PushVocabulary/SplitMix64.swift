/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny seeded generator whose
/// output function is a bijection, in fixed-width arithmetic, so its numbers never
/// change. It seeds the game's generator, picks the simulator's injected faults,
/// makes `apns-id`s, and drives the tests' generated inputs.
public struct SplitMix64: RandomNumberGenerator, Hashable, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(state)
    }

    /// The output function: distinct inputs give distinct outputs.
    public static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in 0..<1 from the top 53 bits.
    public mutating func nextUnitInterval() -> Double { Double(next() >> 11) * 0x1.0p-53 }
}
