import FTMS

/// The transitions of contract §5, shared by every input.
///
/// The open session is reached through optional chaining (`session?.…`) so it is mutated in
/// place: copying it out and back would copy a few hundred bytes per input. Settings passed
/// to such a mutation are read into locals first, since reading `self` during it is an
/// overlapping access.
extension SessionEngine {
    /// Moves the engine's clock to `time` (never backwards) and fires the timers that fell
    /// due on the way. A true wall clock dates the open session anew (``OpenSession/anchor``):
    /// a session that began before the clock was synchronised gets its true dates here.
    mutating func advance(to time: Timestamp, into events: inout SessionEvents) -> Int64 {
        let now = max(Nanoseconds.of(time.monotonic), self.now)
        self.now = now
        read(time)
        guard let due = session?.dueTimers(at: now, disconnectedAt: disconnectedAt, rules: resolved) else { return now }
        if let pauseAt = due.pauseAt { pause(at: pauseAt, reason: .idle, into: &events) }
        if let end = due.end { self.end(at: end.at, reason: end.reason, into: &events) }
        return now
    }

    /// The link is up again (a reconnect, or an input that proves it): the idle clock, which
    /// stood still while it was down, carries on from where it stopped, so a gap the gateway
    /// caused is never the rider's idleness. Whether the rider rode through it is left to the
    /// first sample's counters (``OpenSession/outageSince``).
    mutating func linkIsBack(at now: Int64) {
        guard let down = disconnectedAt else { return }
        disconnectedAt = nil
        guard let lastActivity = session?.lastActivity, lastActivity <= down else { return }
        session?.lastActivity = Nanoseconds.add(lastActivity, max(0, Nanoseconds.subtract(now, down)))
    }

    /// The link went down with a session open: remember where its movement stopped, so the
    /// first sample after the outage can tell whether the rider rode through it.
    mutating func noteOutage() {
        guard let stoppedAt = session?.lastActiveEnd, session?.outageSince == nil else { return }
        session?.outageSince = stoppedAt
    }

    /// Takes the clocks of `time` as the engine's reading of them; a true wall clock anchors
    /// the open session's dates.
    mutating func read(_ time: Timestamp) {
        wallOffset = time.wallOffset
        wallIsTrue = time.wallIsTrue
        boot = time.boot
        if wallIsTrue { session?.anchor = wallOffset }
    }

    /// A sample with no session open: the first real movement starts one (contract §5).
    mutating func startIfMoving(
        _ reading: SampleReading, values: FieldValues, at now: Int64, into events: inout SessionEvents
    ) {
        guard reading.isMoving else {
            needsStillness = false
            return
        }
        guard !needsStillness else { return }
        start(at: now, into: &events)
        // The starting sample is the session's first: its counters are the baseline.
        let rules = resolved
        _ = session?.take(values, reading, at: now, rules: rules)
    }

    mutating func start(at now: Int64, into events: inout SessionEvents) {
        var opened = OpenSession(id: ids.nextSessionID(), at: now, anchor: wallIsTrue ? wallOffset : nil)
        opened.splitFrom = splitFrom.take()
        session = opened
        lastCheckpoint = nil
        events.append(.started(opened.progress(at: now, rules: resolved, offset: wallOffset, boot: boot)))
    }

    mutating func pause(at time: Int64, reason: PauseReason, into events: inout SessionEvents) {
        guard session?.phase.isActive == true else { return }
        let cap = resolved.sampleHoldCap
        session?.closeHold(at: time, cap: cap)
        session?.phase = .paused(reason)
        appendProgress(at: time, into: &events) { .paused($0, reason) }
    }

    /// Appends an event made from the open session's progress at `time`.
    func appendProgress(at time: Int64, into events: inout SessionEvents, _ make: (SessionProgress) -> SessionEvent) {
        if let progress = session?.progress(at: time, rules: resolved, offset: wallOffset, boot: boot) { events.append(make(progress)) }
    }

    /// A console stop, reset or safety key: end, and wait for stillness before the next start.
    mutating func stop(at now: Int64, reason: EndReason, into events: inout SessionEvents) {
        end(at: now, reason: reason, into: &events)
        needsStillness = true
    }

    /// Ends the open session at `time`: finished if it meets the minimum, dropped if not.
    mutating func end(at time: Int64, reason: EndReason, into events: inout SessionEvents) {
        guard var ended = session.take() else { return }
        lastCheckpoint = nil
        ended.closeHold(at: time, cap: resolved.sampleHoldCap)
        let summary = ended.summary(machine: machine, reason: reason, rules: resolved, offset: wallOffset)
        let progress = ended.progress(at: time, rules: resolved, offset: wallOffset, boot: boot)
        if let drop = DropReason.judging(summary, moving: ended.moving, minimum: resolved.minimumMovement) {
            events.append(.dropped(progress, drop, summary))
        } else {
            events.append(.finished(progress, summary))
        }
    }
}
