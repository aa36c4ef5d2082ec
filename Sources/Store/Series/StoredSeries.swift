public import FTMS
public import Workout

/// A session's plot series as the store holds it: which machine recorded it, whether it is
/// bound to a finished (queued) session or still open, and its points in time order.
public struct StoredSeries: Sendable, Hashable {
    public var sessionID: String
    public var machineName: String
    public var machineType: MachineType
    /// `true` once the session is in the queue; `false` while it is open (checkpointed).
    public var finished: Bool
    /// Oldest first, at most one per second of the session.
    public var points: [SeriesPoint]

    public init(sessionID: String, machineName: String, machineType: MachineType, finished: Bool, points: [SeriesPoint]) {
        self.sessionID = sessionID
        self.machineName = machineName
        self.machineType = machineType
        self.finished = finished
        self.points = points
    }
}
