extension SessionEngine {
    /// The open session as a checkpoint, or `nil` when none is open.
    public func snapshot(at time: Timestamp) -> SessionSnapshot? {
        guard let session else { return nil }
        return SessionSnapshot(
            machine: machine,
            savedAt: time.wall,
            savedMonotonic: max(Nanoseconds.of(time.monotonic), now),
            session: session,
            disconnectedAt: disconnectedAt
        )
    }

    /// A checkpoint when one is due: a session opened or changed phase since the last one,
    /// or ``SessionRules/checkpointInterval`` passed. Call it after each input; save what it
    /// returns, and remove the machine's checkpoint when a session finishes or is dropped.
    public mutating func checkpointIfDue(at time: Timestamp) -> SessionSnapshot? {
        guard let phase = session?.phase else {
            lastCheckpoint = nil
            return nil
        }
        let now = max(Nanoseconds.of(time.monotonic), self.now)
        if let last = lastCheckpoint, last.phase == phase,
           Nanoseconds.subtract(now, last.at) < resolved.checkpointInterval {
            return nil
        }
        lastCheckpoint = CheckpointMark(at: now, phase: phase)
        return snapshot(at: time)
    }

    /// An engine that carries on a checkpointed session after a restart (contract §5: "resumed
    /// or closed, never lost").
    ///
    /// The daemon being down is treated as the link dropping at the moment of the snapshot:
    /// the session is paused there, and the disconnect grace decides the rest (the idle limit
    /// does not run while the link is down: the gap is the gateway's). If the downtime
    /// already exceeds the grace, the returned events end the session, with its summary
    /// ending at its last movement; otherwise it stays open and resumes when the machine
    /// reconnects and moves within what is left of the grace, and the machine's counters
    /// across the gap count toward it.
    /// Downtime is measured on the wall clock, the only clock two processes share; a wall
    /// clock that went backwards counts as no downtime.
    public static func restoring(
        _ snapshot: SessionSnapshot, rules: SessionRules = SessionRules(), ids: some SessionIDSource, at time: Timestamp
    ) -> (engine: SessionEngine, events: SessionEvents) {
        var engine = SessionEngine(machine: snapshot.machine, rules: rules, ids: ids)
        let downtime = Nanoseconds.multiply(
            max(0, Nanoseconds.subtract(time.wall.millisecondsSince1970, snapshot.savedAt.millisecondsSince1970)),
            Nanoseconds.perMillisecond
        )
        let savedAt = Nanoseconds.subtract(Nanoseconds.of(time.monotonic), downtime)
        let offset = Nanoseconds.subtract(savedAt, snapshot.savedMonotonic)
        engine.session = snapshot.session.shifted(by: offset)
        engine.now = savedAt
        engine.disconnectedAt = min(snapshot.disconnectedAt.map { Nanoseconds.add($0, offset) } ?? savedAt, savedAt)
        var events = SessionEvents()
        engine.pause(at: savedAt, reason: .disconnected, into: &events)
        engine.noteOutage()
        events.append(contentsOf: engine.tick(at: time))
        return (engine, events)
    }
}
