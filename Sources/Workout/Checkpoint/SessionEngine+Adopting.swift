extension SessionEngine {
    /// An engine that carries on a session another gateway was riding, from the newest
    /// checkpoint of it that gateway mirrored (issue 37: "sessions carry over"): the same session
    /// id, its movement, counters and averages, and the time nobody held the machine counted
    /// as an outage, exactly as ``restoring(_:rules:ids:at:)`` counts a local restart.
    ///
    /// The snapshot's monotonic instants are on the other box's boot clock, and neither box's
    /// wall clock can be trusted to compare them (a gateway without a real-time clock boots at
    /// 2000). So the snapshot is taken as saved when it **arrived** here, `arrival` on this
    /// gateway's monotonic clock (the same clock as `time`'s): the broker delivers a retained
    /// checkpoint within a network hop of its saving, and whatever happened after it (the link
    /// going down, the other gateway dying) is later still. The downtime is `time − arrival`,
    /// never negative; the session is paused there as disconnected; the disconnect grace
    /// decides the rest (ended at its last movement, as a restart after the grace, when the
    /// checkpoint arrived longer than the grace ago); the machine's own distance and energy
    /// counters span the gap when it moves again. The snapshot's boot and wall clock are not
    /// read: the snapshot's dates move with its instants, so a session dated by a true clock
    /// on the other box keeps its dates, and one dated by a true clock here is dated again.
    ///
    /// `time` is when this gateway takes the machine over (before it connects); the caller then
    /// feeds the engine as any other: ``connected(at:)``, samples, ticks.
    public static func adopting(
        _ snapshot: SessionSnapshot, arrivedAt arrival: Duration, rules: SessionRules = SessionRules(),
        ids: some SessionIDSource, at time: Timestamp
    ) -> (engine: SessionEngine, events: SessionEvents) {
        let engine = SessionEngine(machine: snapshot.machine, rules: rules, ids: ids)
        let downtime = max(0, Nanoseconds.subtract(Nanoseconds.of(time.monotonic), Nanoseconds.of(arrival)))
        return resuming(snapshot, after: downtime, engine: engine, at: time)
    }
}
