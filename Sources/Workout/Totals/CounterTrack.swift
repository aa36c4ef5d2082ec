/// One machine counter turned into a session delta that never goes backwards.
///
/// The first value seen is the baseline (a machine rarely starts from zero: a previous rider,
/// a reconnect). Each later value is accepted when its rise is plausible for the time since
/// the last accepted one; a rise past the modulus is a wrap (uint16 energy, elapsed time and
/// strokes, uint24 distance). A small step back is jitter and is held, so the delta stays
/// monotonic. An implausible value is a suspect: if the next sample agrees, a step back means
/// the counter really restarted (a new rider) and a leap forward is followed without counting
/// it; if not, it was one bad packet and is forgotten.
struct CounterTrack: Sendable, Hashable, Codable {
    enum Observation: Equatable {
        case accepted
        case fellBack
    }

    private(set) var seen = false
    /// The highest accepted raw value since the last wrap.
    private(set) var last: Int64 = 0
    private(set) var lastAt: Int64 = 0
    /// Accepted rise since the baseline, in the counter's unit.
    private(set) var total: Int64 = 0
    private var suspects = 0

    mutating func observe(_ raw: Int64, at time: Int64, modulus: Int64, limits: ResolvedCounterLimits) -> Observation {
        guard seen else {
            seen = true
            last = raw
            lastAt = time
            return .accepted
        }
        let step = raw - last
        if step < 0, -step <= limits.tolerance {
            suspects = 0
            return .accepted
        }
        let rise = step >= 0 ? step : step + modulus
        let window = Nanoseconds.seconds(Nanoseconds.add(Nanoseconds.subtract(time, lastAt), limits.slack))
        if Double(rise) <= limits.maximumPerSecond * window {
            total += rise
            last = raw
            lastAt = time
            suspects = 0
            return .accepted
        }
        suspects += 1
        guard suspects >= limits.confirmations else { return .accepted }
        suspects = 0
        if step < 0 { return .fellBack }
        // Confirmed: the machine's counter really is elsewhere now (a console that skipped
        // ahead). Follow it, but a leap is not effort, so it adds nothing.
        last = raw
        lastAt = time
        return .accepted
    }

    /// The same state on a clock that starts elsewhere (restoring a checkpoint).
    func shifted(by offset: Int64) -> CounterTrack {
        var copy = self
        copy.lastAt = Nanoseconds.add(lastAt, offset)
        return copy
    }
}

/// ``CounterLimits`` with the session-wide settings folded in, in the engine's units.
struct ResolvedCounterLimits: Sendable {
    var tolerance: Int64
    var maximumPerSecond: Double
    var slack: Int64
    var confirmations: Int

    init(_ limits: CounterLimits, rules: SessionRules) {
        tolerance = max(0, limits.tolerance)
        maximumPerSecond = limits.maximumPerSecond.isFinite ? max(0, limits.maximumPerSecond) : 0
        slack = max(0, Nanoseconds.of(rules.counterSlack))
        confirmations = max(1, rules.confirmations)
    }
}
