extension SessionEngine {
    /// A checkpointed session closed where it stood, without resuming it: the end of a session
    /// whose machine has since ridden another (the daemon's restore, when one machine has
    /// several checkpoints), or of one read out of a damaged store (`ftms-bridge salvage`).
    ///
    /// It ends as a disconnect at the checkpoint: the summary runs to the session's last
    /// movement, as a session the grace ended does. `finished`, or `dropped` when it is below
    /// the minimum movement; nil for a checkpoint with no session in it.
    public static func closing(_ snapshot: SessionSnapshot, rules: SessionRules = SessionRules()) -> SessionEvent? {
        var engine = SessionEngine(machine: snapshot.machine, rules: rules, ids: ClosingIDs())
        engine.session = snapshot.session
        engine.now = snapshot.savedMonotonic
        var events = SessionEvents()
        engine.end(at: snapshot.savedMonotonic, reason: .disconnected, into: &events)
        return events.last
    }
}

/// A closed session starts nothing, so it needs no new id.
private struct ClosingIDs: SessionIDSource {
    mutating func nextSessionID() -> String { "" }
}
