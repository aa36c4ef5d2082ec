/// ∫ value dt / ∫ dt over the time a value was held.
///
/// Time-weighted rather than per sample (contract §5): a machine that notifies at 4 Hz while
/// sprinting and 1 Hz while cruising must not make the sprint count four times.
struct TimeWeightedMean: Sendable, Hashable, Codable {
    private(set) var integral = 0.0
    private(set) var seconds = 0.0

    mutating func add(_ value: Double, for seconds: Double) {
        integral += value * seconds
        self.seconds += seconds
    }

    var mean: Double? {
        seconds > 0 ? integral / seconds : nil
    }
}
