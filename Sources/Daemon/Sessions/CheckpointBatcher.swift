public import Logging
public import Store
public import Workout

/// Open sessions' periodic checkpoints (SPEC §5), gathered from every machine for `window` and
/// saved in one transaction: one `fdatasync` for the machines due in that window instead of one
/// per machine, which on a gym of ten riders was the store's largest cost per notification
/// (docs/performance.md).
///
/// What it must not weaken: a checkpoint is never lost, only later by at most `window`; a batch
/// that fails is kept whole (a newer snapshot of the same machine wins) and tried again; a
/// session that finishes or is dropped first takes its pending checkpoint out and waits for a
/// batch being written, so no checkpoint of a closed session lands after the store removed it.
/// A finished session itself never waits here: ``SessionSink`` commits it at once.
public actor CheckpointBatcher {
    private let store: GatewayStore
    private let window: Duration
    private let timers: any Clock<Duration>
    private let logger: Logger
    private var pending: [String: SessionSnapshot] = [:]
    private var flushScheduled = false
    private var writing: Task<Void, Never>?

    public init(store: GatewayStore, window: Duration, logger: Logger, timers: any Clock<Duration> = ContinuousClock()) {
        self.store = store
        self.window = window
        self.logger = logger
        self.timers = timers
    }

    /// The machines with a checkpoint waiting for the next batch.
    public var pendingCount: Int { pending.count }

    /// Keeps `snapshot` (replacing that machine's older one) for the batch due at most `window`
    /// from now.
    public func submit(_ snapshot: SessionSnapshot) {
        pending[snapshot.machine.address] = snapshot
        scheduleFlush()
    }

    /// Writes everything pending now, after any batch already being written, and returns when
    /// it is durable (or has failed and been kept for the next try).
    public func flush() async {
        await finishWriting()
        let batch = pending
        pending = [:]
        guard !batch.isEmpty else { return }
        let task = Task { await self.write(batch) }
        writing = task
        await task.value
    }

    /// Forgets the pending checkpoint of `sessionID` on `machineAddress` and waits for a batch
    /// in flight, so that the store's removal of the session's checkpoint comes after it.
    public func discard(machineAddress: String, sessionID: String) async {
        if pending[machineAddress]?.sessionID == sessionID { pending[machineAddress] = nil }
        await finishWriting()
        // A failed batch puts its snapshots back before it finishes.
        if pending[machineAddress]?.sessionID == sessionID { pending[machineAddress] = nil }
    }

    private func finishWriting() async {
        while let current = writing { await current.value }
    }

    private func write(_ batch: [String: SessionSnapshot]) async {
        do {
            try await store.saveAll(Array(batch.values))
        } catch {
            logger.warning("checkpoints of \(batch.count) open session(s) not saved, kept for the next try: \(error)")
            for (address, snapshot) in batch where pending[address] == nil { pending[address] = snapshot }
            scheduleFlush()
        }
        writing = nil
    }

    private func scheduleFlush() {
        guard !flushScheduled, !pending.isEmpty else { return }
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
        if run { await flush() }
    }
}
