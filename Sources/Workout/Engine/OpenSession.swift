/// Everything the engine knows about the session in progress; also the checkpoint's payload.
///
/// Monotonic instants are nanoseconds on the engine's clock. Movement time accrues from
/// holds: a counted sample stands for the time until the next input, capped at
/// ``SessionRules/sampleHoldCap``, and is only accumulated once that time is known. So every
/// second of `moving` lies between the start and ``lastActiveEnd``, which is what makes
/// `duration ≤ elapsed` hold by construction.
struct OpenSession: Sendable, Hashable, Codable {
    let id: String
    private(set) var startedAt: Int64
    /// The wall clock's offset from the monotonic clock, milliseconds, at the latest instant
    /// the session saw whose wall clock was true: what dates it (``Timestamp/wallOffset``);
    /// `nil` while it has seen none, when its dates are only what the clock says. Optional,
    /// so checkpoints written before it existed still decode (and wait for a true clock).
    var anchor: Int64?
    var phase: SessionPhase
    /// The last moving sample, or the Status event that started or resumed the session: what
    /// the idle timers count from.
    var lastActivity: Int64
    /// The end of the last accumulated hold: where the summary says the session ended.
    private(set) var lastActiveEnd: Int64
    /// After a Status pause, movement resumes only once the machine was seen still, so a
    /// flywheel spinning down does not undo the rider's pause.
    var awaitingStillness = false
    private(set) var held: HeldSample?
    private(set) var moving: Int64 = 0
    var sampleCount = 0
    var counters = SessionCounters()
    private(set) var integrated = IntegratedTotals()
    private(set) var averages = SessionAverages()
    /// Where the session's last hold ended when its link went down (a dropped link, or the
    /// gateway itself gone: a restart, a freeze, a suspend); `nil` once the first sample
    /// after the outage has told whether the rider rode through it. Optional and defaulted,
    /// so checkpoints written before it existed still decode.
    var outageSince: Int64?
    /// The session this one continues in part: another gateway's, which this gateway could not
    /// carry on because no checkpoint of it reached it (issue 37: the ride split in two). Kept
    /// in the checkpoint, so a restored session still says it; `nil` for almost every session.
    var splitFrom: String?

    init(id: String, at time: Int64, anchor: Int64?) {
        self.id = id
        startedAt = time
        self.anchor = anchor
        phase = .active
        lastActivity = time
        lastActiveEnd = time
    }

    /// Opens the hold of a counted sample (active and moving).
    mutating func hold(_ reading: SampleReading, at time: Int64) {
        averages.note(reading)
        held = HeldSample(at: time, reading: reading)
    }

    /// Closes the open hold at `time` (capped) and accumulates it.
    mutating func closeHold(at time: Int64, cap: Int64) {
        guard let held else { return }
        self.held = nil
        let span = min(max(Nanoseconds.subtract(time, held.at), 0), cap)
        lastActiveEnd = max(lastActiveEnd, Nanoseconds.add(held.at, span))
        guard span > 0 else { return }
        moving = Nanoseconds.add(moving, span)
        let seconds = Nanoseconds.seconds(span)
        averages.add(held.reading, for: seconds)
        integrated.add(held.reading, for: seconds)
    }

    /// The time of an outage the machine's counters say was ridden (contract §5: the gap is the
    /// gateway's, not the rider's), counted as movement up to `time`. Only movement: the
    /// averages never see the gap, so it stays a capped dropout for them and is not effort.
    mutating func bridgeOutage(from start: Int64, to time: Int64, atMost limit: Int64?) {
        var span = max(Nanoseconds.subtract(time, start), 0)
        if let limit { span = min(span, max(limit, 0)) }
        guard span > 0 else { return }
        moving = Nanoseconds.add(moving, span)
        lastActiveEnd = max(lastActiveEnd, time)
    }

    /// The start's date: the start placed on the wall clock by the ``anchor``, else by `offset`
    /// (the clock as it reads now, not known to be true).
    func startDate(offset: Int64) -> UTCTime {
        UTCTime(millisecondsSince1970: Nanoseconds.add(startedAt / Nanoseconds.perMillisecond, anchor ?? offset))
    }

    /// Progress at `time`, counting the open hold as far as it reaches, with the session's
    /// own distance and energy so far (chosen as the summary chooses them). `offset` and `boot`
    /// are the engine's clock as it reads now (see ``startDate(offset:)``).
    func progress(at time: Int64, rules: ResolvedRules, offset: Int64, boot: BootID?) -> SessionProgress {
        var moving = self.moving
        if let held { moving = Nanoseconds.add(moving, min(max(Nanoseconds.subtract(time, held.at), 0), rules.sampleHoldCap)) }
        let (_, distance) = TotalMethod.choose(
            counterSeen: counters.distance.seen, counter: counters.distance.total, integrated: integrated.metres)
        let (_, energy) = TotalMethod.choose(
            counterSeen: counters.energy.seen, counter: counters.energy.total, integrated: integrated.joules / rules.joulesPerKilocalorie)
        return SessionProgress(
            sessionID: id,
            startedAt: startDate(offset: offset),
            elapsed: Nanoseconds.duration(max(0, Nanoseconds.subtract(time, startedAt))),
            moving: Nanoseconds.duration(moving),
            distance: distance,
            energy: energy,
            timing: SessionTiming(boot: boot, start: Nanoseconds.duration(startedAt), datesAreTrue: anchor != nil),
            splitFrom: splitFrom
        )
    }

    /// The same session on a clock whose origin moved by `offset` (restoring a checkpoint in
    /// another boot, whose monotonic clock starts elsewhere); its dates do not move.
    func shifted(by offset: Int64) -> OpenSession {
        var copy = self
        copy.startedAt = Nanoseconds.add(startedAt, offset)
        copy.anchor = anchor.map { Nanoseconds.subtract($0, offset / Nanoseconds.perMillisecond) }
        copy.lastActivity = Nanoseconds.add(lastActivity, offset)
        copy.lastActiveEnd = Nanoseconds.add(lastActiveEnd, offset)
        copy.held = held.map { HeldSample(at: Nanoseconds.add($0.at, offset), reading: $0.reading) }
        copy.outageSince = outageSince.map { Nanoseconds.add($0, offset) }
        copy.counters = counters.shifted(by: offset)
        return copy
    }
}
