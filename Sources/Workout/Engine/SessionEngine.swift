public import FTMS

/// One machine's session lifecycle (contract §5): merged samples, Status events, link events and
/// ticks in; ``SessionEvent``s out.
///
/// A value type, not a class: each machine's engine is owned by exactly one actor (the
/// machine's link in the daemon, the replay loop in `replay`), which calls its mutating
/// methods in order. There is then nothing to lock and no reference counting on the per-sample
/// path, a checkpoint is a copy of plain data, and a test can fork an engine mid-session by
/// assignment.
///
/// Every input carries its ``Timestamp``; the engine first lets the timers run up to it (so a
/// sample after a long silence ends the old session before it can start a new one), then
/// applies the input. Time never runs backwards inside the engine: an input older than the
/// previous one is taken as happening at the same instant.
public struct SessionEngine: Sendable {
    public var machine: MachineIdentity
    public let rules: SessionRules
    let resolved: ResolvedRules
    var ids: any SessionIDSource
    var session: OpenSession?
    /// When the link dropped; `nil` while it is up.
    var disconnectedAt: Int64?
    /// The latest instant seen.
    var now: Int64 = .min
    /// The clocks as the latest input read them: the wall clock's offset from the monotonic one
    /// (``Timestamp/wallOffset``), whether that wall clock was true, and the boot the monotonic
    /// clock counts from. What a session is dated by (``OpenSession/anchor``).
    var wallOffset: Int64 = 0
    var wallIsTrue = false
    var boot: BootID?
    /// After a console stop, reset or safety key, the next session waits until the machine is
    /// seen still once (or a Status start), so a flywheel spinning down cannot open a session
    /// nobody rides.
    var needsStillness = false
    var lastCheckpoint: CheckpointMark?
    /// What the next session started says it split from (``splitting(from:)``).
    var splitFrom: String?

    public init(machine: MachineIdentity, rules: SessionRules = SessionRules(), ids: some SessionIDSource) {
        self.machine = machine
        self.rules = rules
        resolved = ResolvedRules(rules)
        self.ids = ids
    }

    /// The open session, or else the next one this engine starts, continues in part the
    /// session `sessionID` of another gateway that this one could not carry on (no checkpoint
    /// of it reached the broker): it says so in its progress (``SessionProgress/splitFrom``)
    /// and its checkpoints, the next session from its `started` event on, the open one from now
    /// on (its ride's first gateway can say what it lost only once it is back). An open session
    /// that says it split already keeps what it says; for the next session, a later
    /// `splitting(from:)` before it starts replaces the id.
    public mutating func splitting(from sessionID: String) {
        guard session != nil else {
            splitFrom = sessionID
            return
        }
        if session?.splitFrom == nil { session?.splitFrom = sessionID }
    }

    /// The open session's id, if one is open.
    public var openSessionID: String? { session?.id }

    /// The open session's progress at `time` (for contract §7's `hello` resync), without
    /// advancing the engine.
    public func progress(at time: Timestamp) -> SessionProgress? {
        session?.progress(at: max(Nanoseconds.of(time.monotonic), now), rules: resolved, offset: time.wallOffset, boot: time.boot)
    }

    /// A merged data record (the ``RecordMerger``'s output). Allocation-free unless it
    /// produces an event.
    public mutating func ingest(_ record: DataRecord, at time: Timestamp) -> SessionEvents {
        var events = SessionEvents()
        let now = advance(to: time, into: &events)
        linkIsBack(at: now)
        let reading = SampleReading(record.values)
        // A local: reading `self.resolved` during the in-place mutation of `session` would
        // be an overlapping access.
        let rules = resolved
        switch session?.take(record.values, reading, at: now, rules: rules) {
        case .taken?:
            return events
        case .resumed?:
            appendProgress(at: now, into: &events, SessionEvent.resumed)
            return events
        case .fellBack?:
            end(at: now, reason: .counterFallback, into: &events)
        case nil:
            break
        }
        startIfMoving(reading, values: record.values, at: now, into: &events)
        return events
    }

    /// The running totals of a More Data packet the merger is still holding. Machines that
    /// send their counters after the packet that closes a record (the Viking's energy block
    /// comes 60 ms after its stroke packet) would otherwise have their last counter value
    /// reach the engine only with the next stroke, or never at the end of a session. The
    /// counters move on; nothing else does: it is not a sample and not movement.
    public mutating func ingestRunningTotals(_ values: FieldValues, at time: Timestamp) -> SessionEvents {
        var events = SessionEvents()
        let now = advance(to: time, into: &events)
        let rules = resolved
        if session?.observeRunningTotals(values, at: now, rules: rules) == true {
            end(at: now, reason: .counterFallback, into: &events)
        }
        return events
    }

    /// A Fitness Machine Status event: the console's own start, pause, stop and reset.
    public mutating func ingest(_ status: FitnessMachineStatus, at time: Timestamp) -> SessionEvents {
        var events = SessionEvents()
        let now = advance(to: time, into: &events)
        linkIsBack(at: now)
        switch status.opCode {
        case .reset?:
            stop(at: now, reason: .reset, into: &events)
        case .stoppedBySafetyKey?:
            stop(at: now, reason: .safetyKey, into: &events)
        case .stoppedOrPausedByUser?:
            // Control information 0x01 is stop, 0x02 pause. A machine that leaves it out gets
            // the milder reading: a pause, which the idle timer ends if it lasts.
            if status.parameters[0] == 1 {
                stop(at: now, reason: .stopped, into: &events)
            } else {
                pause(at: now, reason: .machine, into: &events)
                session?.awaitingStillness = true
            }
        case .startedOrResumedByUser?:
            needsStillness = false
            if session == nil {
                start(at: now, into: &events)
            } else {
                session?.lastActivity = now
                session?.awaitingStillness = false
                if session?.resume() == true { appendProgress(at: now, into: &events, SessionEvent.resumed) }
            }
        default:
            break
        }
        return events
    }

    /// The link came up. The session stays paused until the machine moves again; the time it
    /// was down does not count toward the idle limit (see ``linkIsBack(at:)``).
    public mutating func connected(at time: Timestamp) -> SessionEvents {
        var events = SessionEvents()
        linkIsBack(at: advance(to: time, into: &events))
        return events
    }

    /// The link dropped: the session pauses and ends if the link stays down for the grace
    /// period.
    public mutating func disconnected(at time: Timestamp) -> SessionEvents {
        var events = SessionEvents()
        let now = advance(to: time, into: &events)
        if disconnectedAt == nil { disconnectedAt = now }
        pause(at: now, reason: .disconnected, into: &events)
        noteOutage()
        return events
    }

    /// Lets idle and grace timers fire when nothing else arrives. Call it every second or so.
    public mutating func tick(at time: Timestamp) -> SessionEvents {
        var events = SessionEvents()
        _ = advance(to: time, into: &events)
        return events
    }

    /// Ends the open session now: the daemon stopping, an operator, or the end of a capture.
    public mutating func close(at time: Timestamp, reason: EndReason) -> SessionEvents {
        var events = SessionEvents()
        let now = advance(to: time, into: &events)
        end(at: now, reason: reason, into: &events)
        return events
    }
}

/// The phase and time of the last checkpoint handed out.
struct CheckpointMark: Sendable, Hashable {
    var at: Int64
    var phase: SessionPhase
}
