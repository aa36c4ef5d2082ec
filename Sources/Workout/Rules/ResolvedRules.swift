/// ``SessionRules`` converted once into the engine's units (nanoseconds, clamped), so the
/// per-sample path compares integers and never re-derives a threshold.
struct ResolvedRules: Sendable {
    var pauseAfterIdle: Int64
    var endAfterIdle: Int64
    var disconnectGrace: Int64
    var minimumMovement: Int64
    var sampleHoldCap: Int64
    var checkpointInterval: Int64
    /// Joules per kcal of food energy at the configured efficiency.
    var joulesPerKilocalorie: Double
    var distance: ResolvedCounterLimits
    var energy: ResolvedCounterLimits
    var elapsedTime: ResolvedCounterLimits
    var strokeCount: ResolvedCounterLimits

    init(_ rules: SessionRules) {
        pauseAfterIdle = max(0, Nanoseconds.of(rules.pauseAfterIdle))
        endAfterIdle = max(0, Nanoseconds.of(rules.endAfterIdle))
        disconnectGrace = max(0, Nanoseconds.of(rules.disconnectGrace))
        minimumMovement = max(0, Nanoseconds.of(rules.minimumMovement))
        sampleHoldCap = max(0, Nanoseconds.of(rules.sampleHoldCap))
        checkpointInterval = max(0, Nanoseconds.of(rules.checkpointInterval))
        let efficiency = rules.efficiency.isFinite && rules.efficiency > 0 ? rules.efficiency : 0.25
        joulesPerKilocalorie = 4184 * efficiency
        distance = ResolvedCounterLimits(rules.distance, rules: rules)
        energy = ResolvedCounterLimits(rules.energy, rules: rules)
        elapsedTime = ResolvedCounterLimits(rules.elapsedTime, rules: rules)
        strokeCount = ResolvedCounterLimits(rules.strokeCount, rules: rules)
    }
}
