import FTMS

/// What the session makes of one input; the engine turns outcomes into events.
///
/// The decisions live here, on the session value, so the engine reaches the open session
/// once per input (`session?.take(…)`) rather than through a chain of optional accesses.
extension OpenSession {
    enum SampleOutcome {
        case taken
        case resumed
        /// A machine counter fell back: the session must end before this sample.
        case fellBack
    }

    /// Timers that fell due by `now`, each at the instant it fell due.
    struct DueTimers {
        var pauseAt: Int64?
        var end: (at: Int64, reason: EndReason)?
    }

    /// A merged sample: closes the previous hold, checks the counters, counts movement.
    mutating func take(_ values: FieldValues, _ reading: SampleReading, at now: Int64, rules: ResolvedRules) -> SampleOutcome {
        closeHold(at: now, cap: rules.sampleHoldCap)
        if counters.observe(values, at: now, rules: rules) != nil { return .fellBack }
        sampleCount += 1
        guard reading.isMoving else {
            awaitingStillness = false
            return .taken
        }
        lastActivity = now
        var outcome = SampleOutcome.taken
        if !awaitingStillness, resume() { outcome = .resumed }
        if phase.isActive { hold(reading, at: now) }
        return outcome
    }

    /// Running totals that arrived between samples; `true` when one fell back.
    mutating func observeRunningTotals(_ values: FieldValues, at now: Int64, rules: ResolvedRules) -> Bool {
        counters.observe(values, at: now, rules: rules) != nil
    }

    /// Back to active; `false` if it already was.
    mutating func resume() -> Bool {
        guard !phase.isActive else { return false }
        phase = .active
        return true
    }

    /// The idle pause, then the idle end or the disconnect grace, whichever comes first. A
    /// pause that would fall after the end (rules with the pause longer than the end) is not
    /// reported.
    func dueTimers(at now: Int64, disconnectedAt: Int64?, rules: ResolvedRules) -> DueTimers {
        let idleEnd = Nanoseconds.add(lastActivity, rules.endAfterIdle)
        let graceEnd = disconnectedAt.map { Nanoseconds.add($0, rules.disconnectGrace) } ?? .max
        let endAt = min(idleEnd, graceEnd)
        let pauseAt = Nanoseconds.add(lastActivity, rules.pauseAfterIdle)
        var due = DueTimers()
        if phase.isActive, pauseAt < endAt, now >= pauseAt { due.pauseAt = pauseAt }
        if now >= endAt { due.end = (endAt, graceEnd <= idleEnd ? .disconnected : .idle) }
        return due
    }
}
