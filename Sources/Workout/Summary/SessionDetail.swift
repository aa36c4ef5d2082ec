/// The summary's `detail` object (SolidFocus: JSONB with `avg_hr`, `avg_power`, …).
///
/// Averages are rounded once, when the summary is built, to what the JSON prints (one decimal;
/// two for speed), so a summary read back from its JSON equals the one that wrote it. A figure
/// the machine never reported is `nil` and left out of the JSON.
public struct SessionDetail: Sendable, Hashable {
    public var machine: MachineIdentity
    /// Seconds from start to the end of the last movement, pauses included (`elapsed`).
    public var elapsed: Int
    /// `elapsed − duration`: seconds without counted movement (`paused`).
    public var paused: Int
    /// Watts (`avg_power`, `max_power`).
    public var averagePower: Double?
    public var maximumPower: Int?
    /// Revolutions per minute (`avg_cadence`).
    public var averageCadence: Double?
    /// km/h (`avg_speed`): from instantaneous speed, else distance over moving time.
    public var averageSpeed: Double?
    /// Beats per minute (`avg_hr`, `max_hr`).
    public var averageHeartRate: Double?
    public var maximumHeartRate: Int?
    /// Strokes per minute (`avg_stroke_rate`), rowers.
    public var averageStrokeRate: Double?
    /// Strokes in the session (`stroke_count`), rowers.
    public var strokeCount: Int?
    /// Seconds per 500 m over moving time (`avg_pace`), rowers.
    public var averagePace: Double?
    public var energyMethod: TotalMethod
    public var distanceMethod: TotalMethod
    /// Merged samples received while the session was open (`sample_count`).
    public var sampleCount: Int
    public var endReason: EndReason
    /// The dates are what an unsynchronised wall clock said, not known to be true (`"clock":
    /// "unsynchronised"`; contract §5 says when such a session is uploaded).
    public var clockUnsynchronised: Bool

    public init(
        machine: MachineIdentity, elapsed: Int, paused: Int, averagePower: Double? = nil, maximumPower: Int? = nil,
        averageCadence: Double? = nil, averageSpeed: Double? = nil, averageHeartRate: Double? = nil,
        maximumHeartRate: Int? = nil, averageStrokeRate: Double? = nil, strokeCount: Int? = nil,
        averagePace: Double? = nil, energyMethod: TotalMethod, distanceMethod: TotalMethod, sampleCount: Int,
        endReason: EndReason, clockUnsynchronised: Bool = false
    ) {
        self.clockUnsynchronised = clockUnsynchronised
        self.machine = machine
        self.elapsed = elapsed
        self.paused = paused
        self.averagePower = averagePower
        self.maximumPower = maximumPower
        self.averageCadence = averageCadence
        self.averageSpeed = averageSpeed
        self.averageHeartRate = averageHeartRate
        self.maximumHeartRate = maximumHeartRate
        self.averageStrokeRate = averageStrokeRate
        self.strokeCount = strokeCount
        self.averagePace = averagePace
        self.energyMethod = energyMethod
        self.distanceMethod = distanceMethod
        self.sampleCount = sampleCount
        self.endReason = endReason
    }
}
