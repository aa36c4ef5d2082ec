/// How a summary total was obtained: the summary's `energy_method` / `distance_method`.
public enum TotalMethod: String, Sendable, Hashable, Codable, CaseIterable {
    /// Delta of the machine's own counter from the session's first value.
    case counter
    /// Integrated from instantaneous speed or power.
    case integrated
    /// The machine gave neither; the total is 0.
    case none

    /// Picks between a counter delta and an integral. The counter wins when the machine sent
    /// it and it moved; a counter that sat still while the integral says there was effort is a
    /// machine that sends the field without filling it (e.g. energy stuck at 0), so the
    /// integral wins there.
    static func choose(counterSeen: Bool, counter: Int64, integrated: Double) -> (TotalMethod, Int) {
        let integral = integrated.isFinite ? Int(min(integrated.rounded(), Double(Int32.max))) : 0
        if counterSeen, counter > 0 || integral == 0 { return (.counter, Int(counter)) }
        if integral > 0 { return (.integrated, integral) }
        return (.none, 0)
    }
}
