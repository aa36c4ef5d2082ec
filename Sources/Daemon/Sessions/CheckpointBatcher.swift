package import Logging
package import Store
package import Workout

/// Open sessions' periodic checkpoints (contract §5), gathered from every machine for `window` and
/// saved in one transaction: one `fdatasync` for the machines due in that window instead of one
/// per machine, which on a gym of ten riders was the store's largest cost per notification
/// (docs/performance.md).
///
/// What it must not weaken: a checkpoint is never lost, only later by at most `window`; a batch
/// that fails is kept whole (a newer snapshot of the same machine wins) and tried again; a
/// session that finishes or is dropped first takes its pending checkpoint out and waits for a
/// batch being written, so no checkpoint of a closed session lands after the store removed it.
/// A finished session itself never waits here: ``SessionSink`` commits it at once.
///
/// It also gathers the open sessions' plot points (at most one a second per machine). They go
/// in a batch of checkpoints' transaction, so they cost no `fdatasync` of their own: a timed
/// batch takes a session's points once it holds ``seriesBatchPoints`` of them
/// (a chunk row costs about as much to write whatever its size, so fewer, fuller chunks keep
/// the batch's cost near that of the checkpoints alone); ``flush()`` (shutdown) takes them all,
/// and a finished session takes its waiting points out with
/// ``discard(machineAddress:sessionID:)`` and stores them with the session. A crash loses at
/// most that many seconds of a session's plot, never the session.
package actor CheckpointBatcher {
    /// How many points of a session a timed batch waits for before it writes them.
    package static let seriesBatchPoints = 15
    private let store: GatewayStore
    private let window: Duration
    private let timers: any Clock<Duration>
    private let logger: Logger
    private var pending: [String: SessionSnapshot] = [:]
    /// Plot points not yet stored, by session id.
    private var series: [String: SeriesChunk] = [:]
    /// Sessions whose points the next batch takes however few: finished ones put back by ``keep(_:)``.
    private var due: Set<String> = []
    private var flushScheduled = false
    private var writing: Task<Void, Never>?

    package init(store: GatewayStore, window: Duration, logger: Logger, timers: any Clock<Duration> = ContinuousClock()) {
        self.store = store
        self.window = window
        self.logger = logger
        self.timers = timers
    }

    /// The machines with a checkpoint waiting for the next batch.
    package var pendingCount: Int { pending.count }

    /// Keeps `snapshot` (replacing that machine's older one) for the batch due at most `window`
    /// from now.
    package func submit(_ snapshot: SessionSnapshot) {
        pending[snapshot.machine.address] = snapshot
        scheduleFlush()
    }

    /// Keeps `point` of the open session `sessionID` for the next batch (it schedules none of
    /// its own: an open session's checkpoints come every few seconds).
    package func record(_ point: SeriesPoint, sessionID: String, machine: MachineIdentity) {
        series[sessionID, default: SeriesChunk(sessionID: sessionID, machine: machine, points: [])].points.append(point)
    }

    /// Puts back the points of a finished session that could not be stored: they go to the
    /// store with the next batch as its open series, which the session's kept checkpoint
    /// finishes after a restart.
    package func keep(_ chunk: SeriesChunk) {
        series[chunk.sessionID] = Self.joined(chunk, series[chunk.sessionID])
        due.insert(chunk.sessionID)
        scheduleFlush()
    }

    /// The plot points waiting for the next batch, over all sessions.
    package var pendingPoints: Int { series.values.reduce(0) { $0 + $1.points.count } }

    /// Writes everything pending now, after any batch already being written, and returns when
    /// it is durable (or has failed and been kept for the next try).
    package func flush() async {
        await flush(allPoints: true)
    }

    /// `allPoints: false` (a timed batch): only the sessions holding ``seriesBatchPoints``
    /// points give them up; the others keep them for a later batch.
    private func flush(allPoints: Bool) async {
        await finishWriting()
        let batch = pending
        let points = allPoints ? series : series.filter { $0.value.points.count >= Self.seriesBatchPoints || due.contains($0.key) }
        pending = [:]
        for id in points.keys {
            series[id] = nil
            due.remove(id)
        }
        guard !batch.isEmpty || !points.isEmpty else { return }
        let task = Task { await self.write(batch, points) }
        writing = task
        await task.value
    }

    /// Forgets the pending checkpoint of `sessionID` on `machineAddress` and waits for a batch
    /// in flight, so that the store's removal of the session's checkpoint comes after it.
    /// Returns the session's plot points not yet stored, for the caller to store with the
    /// finished session (or to drop with a dropped one).
    @discardableResult
    package func discard(machineAddress: String, sessionID: String) async -> SeriesChunk? {
        if pending[machineAddress]?.sessionID == sessionID { pending[machineAddress] = nil }
        await finishWriting()
        // A failed batch puts its snapshots and points back before it finishes.
        if pending[machineAddress]?.sessionID == sessionID { pending[machineAddress] = nil }
        due.remove(sessionID)
        return series.removeValue(forKey: sessionID)
    }

    private func finishWriting() async {
        while let current = writing { await current.value }
    }

    private func write(_ batch: [String: SessionSnapshot], _ points: [String: SeriesChunk]) async {
        do {
            try await store.saveAll(Array(batch.values), series: Array(points.values))
        } catch {
            logger.warning("checkpoints of \(batch.count) open session(s) not saved, kept for the next try: \(error)")
            for (address, snapshot) in batch where pending[address] == nil { pending[address] = snapshot }
            // The failed batch's points are older than any gathered since.
            for chunk in points.values { series[chunk.sessionID] = Self.joined(chunk, series[chunk.sessionID]) }
            scheduleFlush()
        }
        writing = nil
    }

    private static func joined(_ older: SeriesChunk, _ newer: SeriesChunk?) -> SeriesChunk {
        SeriesChunk(sessionID: older.sessionID, machine: older.machine, points: older.points + (newer?.points ?? []))
    }

    private func scheduleFlush() {
        guard !flushScheduled, !pending.isEmpty || !series.isEmpty else { return }
        flushScheduled = true
        Task { [timers, window] in
            do {
                try await timers.sleep(for: window)
            } catch {
                // The timers' loop is gone (the daemon is stopping): shutdown's own checkpoints
                // flush what is pending; retrying here would spin on a sleep that fails at once.
                return await self.scheduledFlush(run: false)
            }
            await self.scheduledFlush(run: true)
        }
    }

    private func scheduledFlush(run: Bool) async {
        flushScheduled = false
        if run { await flush(allPoints: false) }
    }
}
