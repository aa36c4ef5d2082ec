public import FTMS

/// One point of a session's plot: what a machine reported at one second of the session, in
/// the units people read (W, rpm, km/h, s/500 m, spm, bpm, m).
///
/// The per-session series the store keeps (one point a second at most, see
/// ``SeriesRecorder``) and the plots drawn from captures are both made of these, so
/// `replay --plot`, `queue --plot` and the dashboard's session pages draw the same thing.
/// The JSON keys are one or two letters because a three-hour session holds 10,800 of them.
public struct SeriesPoint: Sendable, Hashable, Codable {
    /// Seconds from the session's start (pauses included), or from a capture's first sample.
    public var t: Double
    public var power: Double?
    public var cadence: Double?
    public var speed: Double?
    /// Seconds per 500 m (rower).
    public var pace: Double?
    public var strokeRate: Double?
    /// 0 (no strap contact) is left out.
    public var heartRate: Double?
    /// The machine's own running distance, metres.
    public var distance: Double?

    public init(
        t: Double, power: Double? = nil, cadence: Double? = nil, speed: Double? = nil, pace: Double? = nil,
        strokeRate: Double? = nil, heartRate: Double? = nil, distance: Double? = nil
    ) {
        self.t = t
        self.power = power
        self.cadence = cadence
        self.speed = speed
        self.pace = pace
        self.strokeRate = strokeRate
        self.heartRate = heartRate
        self.distance = distance
    }

    /// The point of a merged sample's values at `t`.
    public init(t: Double, values: FieldValues) {
        self.init(
            t: t, power: values.value(.instantaneousPower), cadence: values.value(.instantaneousCadence),
            speed: values.value(.instantaneousSpeed), pace: values.value(.instantaneousPace),
            strokeRate: values.value(.strokeRate), heartRate: values.value(.heartRate).flatMap { $0 > 0 ? $0 : nil },
            distance: values.value(.totalDistance))
    }

    enum CodingKeys: String, CodingKey {
        case t, power = "p", cadence = "c", speed = "v", pace = "pa", strokeRate = "s", heartRate = "h", distance = "d"
    }
}
