/// What one machine counter may plausibly do between two samples.
///
/// A counter that steps back by more than ``tolerance`` is either a new rider (the console
/// was reset) or a glitch (one packet of zeros); one that leaps forward faster than
/// ``maximumPerSecond`` is a glitch. The engine tells them apart by asking the next sample
/// (``SessionRules/confirmations``), so a single bad packet never splits or inflates a session.
public struct CounterLimits: Sendable, Hashable, Codable {
    /// A step back this small (in the counter's unit) is jitter: ignored, never a reset.
    public var tolerance: Int64
    /// The fastest plausible rise per second, in the counter's unit; anything faster is
    /// suspect. Wrap-around is judged by the same bound, so a wrap is only accepted where it
    /// is also a plausible rise.
    public var maximumPerSecond: Double

    public init(tolerance: Int64, maximumPerSecond: Double) {
        self.tolerance = tolerance
        self.maximumPerSecond = maximumPerSecond
    }
}
