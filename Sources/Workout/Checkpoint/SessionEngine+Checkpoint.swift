extension SessionEngine {
    /// The open session as a checkpoint, or `nil` when none is open.
    public func snapshot(at time: Timestamp) -> SessionSnapshot? {
        guard var session else { return nil }
        if time.wallIsTrue { session.anchor = time.wallOffset }
        return SessionSnapshot(
            machine: machine,
            savedAt: time.wall,
            savedMonotonic: max(Nanoseconds.of(time.monotonic), now),
            savedWallIsTrue: time.wallIsTrue,
            boot: time.boot,
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
    ///
    /// How long the daemon was down is measured on what can be known (``downtime(of:at:)``): a
    /// restart within one boot on `CLOCK_BOOTTIME`, whatever the wall clock did meanwhile. When
    /// it cannot be known (a reboot without a true wall clock on both sides, or a wall clock
    /// behind the checkpoint's), the session ends where the checkpoint left it: two riders'
    /// sessions are never merged on a guess.
    public static func restoring(
        _ snapshot: SessionSnapshot, rules: SessionRules = SessionRules(), ids: some SessionIDSource, at time: Timestamp
    ) -> (engine: SessionEngine, events: SessionEvents) {
        var engine = SessionEngine(machine: snapshot.machine, rules: rules, ids: ids)
        let saved = snapshot.savedMonotonic
        guard let downtime = downtime(of: snapshot, at: time) else {
            // Ended on the snapshot's own clock, dated as it was then; the engine then starts
            // afresh on this one.
            var ended = SessionEngine(machine: snapshot.machine, rules: rules, ids: ids)
            ended.session = snapshot.session
            ended.now = saved
            ended.wallOffset = snapshot.savedOffset
            ended.boot = snapshot.boot
            ended.disconnectedAt = min(snapshot.disconnectedAt ?? saved, saved)
            var events = SessionEvents()
            ended.pause(at: saved, reason: .disconnected, into: &events)
            ended.end(at: saved, reason: .disconnected, into: &events)
            events.append(contentsOf: engine.tick(at: time))
            return (engine, events)
        }
        return resuming(snapshot, after: downtime, engine: engine, at: time)
    }

    /// The session of `snapshot` carried on by `engine`, the gateway having been gone for
    /// `downtime` nanoseconds before `time`: the snapshot's instants are moved onto this clock
    /// (the snapshot taken `downtime` before `time`), the session paused there as disconnected,
    /// and the grace lets it resume or ends it (``restoring(_:rules:ids:at:)``,
    /// ``adopting(_:arrivedAt:rules:ids:at:)``).
    static func resuming(
        _ snapshot: SessionSnapshot, after downtime: Int64, engine: SessionEngine, at time: Timestamp
    ) -> (engine: SessionEngine, events: SessionEvents) {
        var engine = engine
        let savedAt = Nanoseconds.subtract(Nanoseconds.of(time.monotonic), downtime)
        let offset = Nanoseconds.subtract(savedAt, snapshot.savedMonotonic)
        engine.session = snapshot.session.shifted(by: offset)
        engine.now = savedAt
        engine.read(time)
        engine.disconnectedAt = min(snapshot.disconnectedAt.map { Nanoseconds.add($0, offset) } ?? savedAt, savedAt)
        var events = SessionEvents()
        engine.pause(at: savedAt, reason: .disconnected, into: &events)
        engine.noteOutage()
        events.append(contentsOf: engine.tick(at: time))
        return (engine, events)
    }

    /// How long the saving process has been gone at `time`, nanoseconds; `nil` when that cannot
    /// be known.
    ///
    /// - Same boot: `CLOCK_BOOTTIME`'s difference, exact (a wall clock stepped meanwhile, by NTP
    ///   or by hand, changes nothing).
    /// - Another boot: the wall clocks' difference, if both were true and it is not negative.
    /// - A version 1 checkpoint (no boot kept): the wall clocks' difference if it is not
    ///   negative, as before.
    static func downtime(of snapshot: SessionSnapshot, at time: Timestamp) -> Int64? {
        if let boot = snapshot.boot, boot == time.boot {
            return max(0, Nanoseconds.subtract(Nanoseconds.of(time.monotonic), snapshot.savedMonotonic))
        }
        let trusted = snapshot.version < 2 || (snapshot.savedWallIsTrue && time.wallIsTrue)
        let wall = Nanoseconds.subtract(time.wall.millisecondsSince1970, snapshot.savedAt.millisecondsSince1970)
        guard trusted, wall >= 0 else { return nil }
        return Nanoseconds.multiply(wall, Nanoseconds.perMillisecond)
    }
}
