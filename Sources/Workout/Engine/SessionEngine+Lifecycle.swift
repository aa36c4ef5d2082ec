import FTMS

/// The transitions of SPEC §5, shared by every input.
///
/// The open session is reached through optional chaining (`session?.…`) so it is mutated in
/// place: copying it out and back would copy a few hundred bytes per sample. Settings are
/// read into locals first, since reading `self` during that in-place mutation is an
/// overlapping access.
extension SessionEngine {
    /// Moves the engine's clock to `time` (never backwards) and fires the timers that fall
    /// due on the way: the idle pause, then the idle end or the disconnect grace, whichever
    /// comes first, each at the instant it fell due rather than when it was noticed.
    mutating func advance(to time: Timestamp, into events: inout SessionEvents) -> Int64 {
        let now = max(Nanoseconds.of(time.monotonic), self.now)
        self.now = now
        guard let lastActivity = session?.lastActivity else { return now }
        let idleEnd = Nanoseconds.add(lastActivity, resolved.endAfterIdle)
        let graceEnd = disconnectedAt.map { Nanoseconds.add($0, resolved.disconnectGrace) } ?? .max
        let endAt = min(idleEnd, graceEnd)
        let pauseAt = Nanoseconds.add(lastActivity, resolved.pauseAfterIdle)
        if session?.phase.isActive == true, pauseAt < endAt, now >= pauseAt {
            pause(at: pauseAt, reason: .idle, into: &events)
        }
        if now >= endAt {
            end(at: endAt, reason: graceEnd <= idleEnd ? .disconnected : .idle, into: &events)
        }
        return now
    }

    /// A sample for the open session.
    mutating func continueSession(with reading: SampleReading, at now: Int64, into events: inout SessionEvents) {
        session?.sampleCount += 1
        guard reading.isMoving else {
            session?.awaitingStillness = false
            return
        }
        session?.lastActivity = now
        if session?.awaitingStillness == false { resumeIfPaused(at: now, into: &events) }
        if session?.phase.isActive == true { session?.hold(reading, at: now) }
    }

    /// A sample with no session open: the first real movement starts one (SPEC §5).
    mutating func startIfMoving(
        _ reading: SampleReading, values: FieldValues, at now: Int64, wall: UTCTime, into events: inout SessionEvents
    ) {
        guard reading.isMoving else {
            needsStillness = false
            return
        }
        guard !needsStillness else { return }
        start(at: now, wall: wall, into: &events)
        let rules = resolved
        _ = session?.counters.observe(values, at: now, rules: rules)
        session?.sampleCount = 1
        session?.hold(reading, at: now)
    }

    mutating func start(at now: Int64, wall: UTCTime, into events: inout SessionEvents) {
        let opened = OpenSession(id: ids.nextSessionID(), at: now, wall: wall)
        session = opened
        lastCheckpoint = nil
        events.append(.started(opened.progress(at: now, cap: resolved.sampleHoldCap)))
    }

    mutating func pause(at time: Int64, reason: PauseReason, into events: inout SessionEvents) {
        guard session?.phase.isActive == true else { return }
        let cap = resolved.sampleHoldCap
        session?.closeHold(at: time, cap: cap)
        session?.phase = .paused(reason)
        if let progress = session?.progress(at: time, cap: cap) {
            events.append(.paused(progress, reason))
        }
    }

    mutating func resumeIfPaused(at now: Int64, into events: inout SessionEvents) {
        guard session?.phase.isActive == false else { return }
        session?.phase = .active
        if let progress = session?.progress(at: now, cap: resolved.sampleHoldCap) {
            events.append(.resumed(progress))
        }
    }

    /// A console stop, reset or safety key: end, and wait for stillness before the next start.
    mutating func stop(at now: Int64, reason: EndReason, into events: inout SessionEvents) {
        end(at: now, reason: reason, into: &events)
        needsStillness = true
    }

    /// Ends the open session at `time`: finished if it meets the minimum, dropped if not.
    mutating func end(at time: Int64, reason: EndReason, into events: inout SessionEvents) {
        guard var ended = session else { return }
        session = nil
        lastCheckpoint = nil
        ended.closeHold(at: time, cap: resolved.sampleHoldCap)
        let summary = ended.summary(machine: machine, reason: reason, rules: resolved)
        let progress = ended.progress(at: time, cap: resolved.sampleHoldCap)
        if let drop = DropReason.judging(summary, moving: ended.moving, minimum: resolved.minimumMovement) {
            events.append(.dropped(progress, drop, summary))
        } else {
            events.append(.finished(progress, summary))
        }
    }
}
