import Workout

/// Workout's SplitMix64, so a failing property names its seed and reruns exactly.
typealias SeededRandom = SplitMix64

extension SplitMix64 {
    mutating func bytes(count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &self) }
    }
}
