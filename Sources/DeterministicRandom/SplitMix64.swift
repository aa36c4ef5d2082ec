/// SplitMix64 (Steele, Lea, Flood 2014): a tiny seeded generator, the same on every platform,
/// so a seed names one exact run: replay's session ids, the simulator's riders and radio
/// noise, and every test that draws random inputs and must rerun a failure exactly.
public struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in `range`, from this generator alone (the standard library's `Double.random`
    /// may change its algorithm between releases; a recorded scenario must not).
    public mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        let unit = Double(next() >> 11) / Double(1 << 53)
        return range.lowerBound + unit * (range.upperBound - range.lowerBound)
    }

    /// `count` bytes.
    public mutating func bytes(count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &self) }
    }

    /// A seed for item `index` of a run seeded with `seed`: distinct, stable streams.
    public static func derive(_ seed: UInt64, _ index: Int) -> UInt64 {
        var generator = SplitMix64(seed: seed ^ (UInt64(truncatingIfNeeded: index) &* 0xD6E8_FEB8_6659_FD93))
        return generator.next()
    }
}
