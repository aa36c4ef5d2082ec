import Workout

/// The open sessions' checkpoints and plot points waiting for the next transaction of the
/// ``FinishedSessionKeeper``: the newest snapshot per machine, and the points per session.
///
/// Data only; the keeper does the writing. Its rules: a newer snapshot of a machine replaces
/// the older; a batch taken out and refused is put back whole, where a snapshot taken since
/// wins and the failed batch's points, being older, go first; a timed batch takes a session's
/// points only once it holds ``seriesBatchPoints`` of them (a chunk row costs about as much to
/// write whatever its size, so fewer, fuller chunks keep the batch's cost near that of the
/// checkpoints alone).
struct CheckpointBatch: Sendable {
    /// How many points of a session a timed batch waits for before it writes them.
    static let seriesBatchPoints = 15

    /// The newest snapshot of each machine, by address.
    private(set) var snapshots: [String: SessionSnapshot] = [:]
    /// Plot points not yet stored, by session id.
    private(set) var series: [String: SeriesChunk] = [:]

    var isEmpty: Bool { snapshots.isEmpty && series.isEmpty }

    /// The plot points waiting, over all sessions.
    var points: Int { series.values.reduce(0) { $0 + $1.points.count } }

    mutating func submit(_ snapshot: SessionSnapshot) {
        snapshots[snapshot.machine.address] = snapshot
    }

    mutating func record(_ point: SeriesPoint, sessionID: String, machine: MachineIdentity) {
        series[sessionID, default: SeriesChunk(sessionID: sessionID, machine: machine, points: [])].points.append(point)
    }

    /// Takes out what the next transaction writes: every machine's snapshot and points but
    /// those of the machines `waiting`; `allPoints: false` (a timed batch) leaves a session's
    /// points until it holds ``seriesBatchPoints``.
    mutating func take(allPoints: Bool, except waiting: Set<String>) -> (snapshots: [String: SessionSnapshot], series: [String: SeriesChunk]) {
        let taken = snapshots.filter { !waiting.contains($0.key) }
        let points = series.filter { entry in
            !waiting.contains(entry.value.machine.address) && (allPoints || entry.value.points.count >= Self.seriesBatchPoints)
        }
        for address in taken.keys { snapshots[address] = nil }
        for id in points.keys { series[id] = nil }
        return (taken, points)
    }

    /// A batch the store refused, back for the next try.
    mutating func putBack(snapshots failed: [String: SessionSnapshot], series failedSeries: [String: SeriesChunk]) {
        for (address, snapshot) in failed where snapshots[address] == nil { snapshots[address] = snapshot }
        for chunk in failedSeries.values {
            let newer = series[chunk.sessionID]?.points ?? []
            series[chunk.sessionID] = SeriesChunk(sessionID: chunk.sessionID, machine: chunk.machine, points: chunk.points + newer)
        }
    }

    /// Forgets the waiting checkpoint of `sessionID` on `machineAddress` (a machine's next
    /// session's is left alone).
    mutating func forgetCheckpoint(machineAddress: String, sessionID: String) {
        if snapshots[machineAddress]?.sessionID == sessionID { snapshots[machineAddress] = nil }
    }

    /// Takes the session's waiting points out.
    mutating func takeSeries(sessionID: String) -> SeriesChunk? {
        series.removeValue(forKey: sessionID)
    }
}
