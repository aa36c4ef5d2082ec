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
        let before = counters
        if counters.observe(values, at: now, rules: rules) != nil { return .fellBack }
        if let outage = outageSince { judgeOutage(since: outage, before: before, values: values, at: now) }
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

    /// The first sample after an outage that carries a counter says what happened in it: a
    /// distance or stroke count that rose (plausibly: the counter guards already judged it)
    /// means the rider rode through the gap, which then counts as movement, no longer than
    /// the machine's own elapsed time rose when it reports one. A counter that did not move
    /// leaves the gap a pause; one that fell back is ended by the caller as a new rider.
    private mutating func judgeOutage(since outage: Int64, before: SessionCounters, values: FieldValues, at now: Int64) {
        let carriesCounter = values.contains(.totalDistance) || values.contains(.strokeCount)
            || values.contains(.totalEnergy) || values.contains(.elapsedTime)
        guard carriesCounter else { return }
        outageSince = nil
        let rode = counters.distance.total > before.distance.total || counters.strokeCount.total > before.strokeCount.total
        guard rode else { return }
        let elapsedRise: Int64? = before.elapsedTime.seen && counters.elapsedTime.total > before.elapsedTime.total
            ? Nanoseconds.multiply(counters.elapsedTime.total - before.elapsedTime.total, Nanoseconds.perSecond) : nil
        bridgeOutage(from: outage, to: now, atMost: elapsedRise)
        lastActivity = max(lastActivity, now)
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
        // While the link is down the idle clock stands still: nobody can tell whether the
        // rider is idle, and the gap may be the gateway's own (contract §5). Only the grace ends
        // a disconnected session.
        let idleEnd = disconnectedAt == nil ? Nanoseconds.add(lastActivity, rules.endAfterIdle) : .max
        let graceEnd = disconnectedAt.map { Nanoseconds.add($0, rules.disconnectGrace) } ?? .max
        let endAt = min(idleEnd, graceEnd)
        let pauseAt = Nanoseconds.add(lastActivity, rules.pauseAfterIdle)
        var due = DueTimers()
        if phase.isActive, pauseAt < endAt, now >= pauseAt { due.pauseAt = pauseAt }
        if now >= endAt { due.end = (endAt, graceEnd <= idleEnd ? .disconnected : .idle) }
        return due
    }
}
