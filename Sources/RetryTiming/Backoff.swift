import Clocks

/// Bounded exponential backoff with jitter, for reconnecting forever (contract §2).
///
/// "Equal jitter": each delay is drawn from the upper half of the exponential step, so
/// machines that dropped together (a gym's power blip) spread out, yet no retry comes
/// sooner than half the step. The draw is passed in, so tests replay exact sequences.
public struct Backoff: Sendable, Equatable {
    public var initial: Duration
    public var maximum: Duration
    public var multiplier: Double
    public private(set) var attempt = 0

    public init(initial: Duration = .milliseconds(500), maximum: Duration = .seconds(30), multiplier: Double = 2) {
        self.initial = initial
        self.maximum = maximum
        self.multiplier = max(multiplier, 1)
    }

    /// The next delay, for `random` in 0..<1; never above ``maximum``.
    public mutating func next(random: Double) -> Duration {
        let cap = maximum.seconds
        let step = min(initial.seconds * Self.power(multiplier, attempt), cap)
        attempt += 1
        let unit = min(max(random, 0), 1)
        return .seconds(min(step / 2 + step / 2 * unit, cap))
    }

    /// After a connection that worked, the next failure starts from ``initial`` again.
    public mutating func reset() {
        attempt = 0
    }

    /// Overflow-safe: past a few dozen steps the cap has long been reached.
    private static func power(_ base: Double, _ exponent: Int) -> Double {
        var result = 1.0
        for _ in 0..<min(exponent, 64) { result *= base }
        return result
    }
}
