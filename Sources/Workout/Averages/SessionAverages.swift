/// The time-weighted averages and the maxima of one session, over counted (moving, active)
/// time only.
///
/// Zeros inside moving time count (coasting on a bike is real), as contract §5 recommends;
/// heart rate 0 means no strap and never counts. Negative power (some machines report
/// braking) averages as zero.
struct SessionAverages: Sendable, Hashable, Codable {
    var power = TimeWeightedMean()
    var cadence = TimeWeightedMean()
    var speed = TimeWeightedMean()
    var heartRate = TimeWeightedMean()
    var strokeRate = TimeWeightedMean()
    var maxPower: Int32?
    var maxHeartRate: Int32?

    /// A counted sample, when it arrives: its peaks are peaks even if its hold turns out short.
    mutating func note(_ reading: SampleReading) {
        if let power = reading.power { maxPower = max(maxPower ?? power, power) }
        if let heartRate = reading.heartRate { maxHeartRate = max(maxHeartRate ?? heartRate, heartRate) }
    }

    /// A counted sample, once its hold is known.
    mutating func add(_ reading: SampleReading, for seconds: Double) {
        if let power = reading.power { self.power.add(Double(max(power, 0)), for: seconds) }
        if let cadence = reading.cadence { self.cadence.add(Double(cadence) / 2, for: seconds) }
        if let speed = reading.speed { self.speed.add(Double(speed) / 100, for: seconds) }
        if let heartRate = reading.heartRate { self.heartRate.add(Double(heartRate), for: seconds) }
        if let strokeRate = reading.strokeRate { self.strokeRate.add(Double(strokeRate) / 2, for: seconds) }
    }
}
