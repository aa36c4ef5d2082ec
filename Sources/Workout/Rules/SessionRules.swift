/// Every threshold of the session lifecycle (contract §5), with its documented default.
///
/// One value so a config file, a test and replay all state the rules the same way.
public struct SessionRules: Sendable, Hashable, Codable {
    /// No movement this long pauses an active session. Default 6 s (openrowingmonitor's
    /// `maximumStrokeTimeBeforePause`, contract §5).
    public var pauseAfterIdle: Duration = .seconds(6)
    /// No movement this long ends a session. Default 120 s (contract §5; a gym wants minutes,
    /// not TrackMyIndoorWorkout's 30 s home default).
    public var endAfterIdle: Duration = .seconds(120)
    /// A disconnect that lasts this long ends the session; a reconnect within it continues
    /// the session. Default 60 s (contract §5). A restored checkpoint counts as a disconnect at
    /// the moment it was saved.
    public var disconnectGrace: Duration = .seconds(60)
    /// Sessions with less movement than this are dropped. Default 60 s (contract §5).
    public var minimumMovement: Duration = .seconds(60)
    /// A sample stands for at most this long: the longest gap between samples counted as
    /// effort, so a BLE dropout is not integrated as riding (contract §5: 3 s). Default 3 s.
    public var sampleHoldCap: Duration = .seconds(3)
    /// Gross mechanical efficiency for energy from power: kcal = Σ P·Δt / 4184 / efficiency.
    /// Default 0.25 (contract §5; TrackMyIndoorWorkout's factor 4).
    public var efficiency: Double = 0.25
    /// How many consecutive suspect samples (a counter stepping back or leaping forward)
    /// confirm the change. Default 2: one glitch packet is ignored, a real reset is believed
    /// on the next sample.
    public var confirmations: Int = 2
    /// A forward counter jump is judged against its rate over the time since the last good
    /// value plus this slack (merged samples carry counters of different ages). Default 5 s.
    public var counterSlack: Duration = .seconds(5)
    /// Total Distance, metres. Default: 5 m back is jitter; 30 m/s (108 km/h) is the fastest rise.
    public var distance = CounterLimits(tolerance: 5, maximumPerSecond: 30)
    /// Total Energy, kcal. Default: 1 kcal back is rounding; 1 kcal/s (3600 kcal/h) at most.
    public var energy = CounterLimits(tolerance: 1, maximumPerSecond: 1)
    /// Elapsed Time, seconds. Default: 2 s back is jitter; it cannot run faster than time
    /// (1.5 s/s leaves room for consoles that tick unevenly).
    public var elapsedTime = CounterLimits(tolerance: 2, maximumPerSecond: 1.5)
    /// Stroke Count. Default: 1 stroke back is jitter; 2 strokes/s (120 spm) at most.
    public var strokeCount = CounterLimits(tolerance: 1, maximumPerSecond: 2)
    /// How often the open session is worth a checkpoint (SolidFocus "every N seconds, against a
    /// crash"). Default 5 s. A change of phase is checkpointed at once.
    public var checkpointInterval: Duration = .seconds(5)

    public init() {}

    public func limits(for counter: CounterKind) -> CounterLimits {
        switch counter {
        case .distance: distance
        case .energy: energy
        case .elapsedTime: elapsedTime
        case .strokeCount: strokeCount
        }
    }
}
