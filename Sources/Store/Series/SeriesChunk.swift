public import Workout

/// Points of one session's plot series not yet in the store: what the daemon's
/// `FinishedSessionKeeper` gathers between two batches of checkpoints and what a finished
/// session brings to the queue.
public struct SeriesChunk: Sendable, Hashable {
    public var sessionID: String
    public var machine: MachineIdentity
    /// Oldest first.
    public var points: [SeriesPoint]

    public init(sessionID: String, machine: MachineIdentity, points: [SeriesPoint]) {
        self.sessionID = sessionID
        self.machine = machine
        self.points = points
    }
}
