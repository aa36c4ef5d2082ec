import FTMS

/// The four machine counters of one session.
///
/// Written out field by field rather than as a collection: the per-sample path must not
/// allocate, and four stored tracks cost nothing to reach.
struct SessionCounters: Sendable, Hashable, Codable {
    var distance = CounterTrack()
    var energy = CounterTrack()
    var elapsedTime = CounterTrack()
    var strokeCount = CounterTrack()

    /// Feeds every counter the sample carries; returns the first one that confirmed a fall
    /// back (a new rider), after which the session must end.
    mutating func observe(_ values: FieldValues, at time: Int64, rules: ResolvedRules) -> CounterKind? {
        var fellBack: CounterKind?
        if let raw = values.raw(.totalDistance),
           distance.observe(Int64(raw), at: time, modulus: CounterKind.distance.modulus, limits: rules.distance) == .fellBack {
            fellBack = fellBack ?? .distance
        }
        if let raw = values.raw(.totalEnergy), raw != Self.energyNotAvailable,
           energy.observe(Int64(raw), at: time, modulus: CounterKind.energy.modulus, limits: rules.energy) == .fellBack {
            fellBack = fellBack ?? .energy
        }
        if let raw = values.raw(.elapsedTime),
           elapsedTime.observe(Int64(raw), at: time, modulus: CounterKind.elapsedTime.modulus, limits: rules.elapsedTime) == .fellBack {
            fellBack = fellBack ?? .elapsedTime
        }
        if let raw = values.raw(.strokeCount),
           strokeCount.observe(Int64(raw), at: time, modulus: CounterKind.strokeCount.modulus, limits: rules.strokeCount) == .fellBack {
            fellBack = fellBack ?? .strokeCount
        }
        return fellBack
    }

    /// Total Energy's "data not available" (contract §3): present on the wire, but no value.
    private static let energyNotAvailable: Int32 = 0xFFFF

    func shifted(by offset: Int64) -> SessionCounters {
        SessionCounters(
            distance: distance.shifted(by: offset),
            energy: energy.shifted(by: offset),
            elapsedTime: elapsedTime.shifted(by: offset),
            strokeCount: strokeCount.shifted(by: offset)
        )
    }
}
