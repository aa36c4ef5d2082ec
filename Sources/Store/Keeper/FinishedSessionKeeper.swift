import Synchronization
package import Logging
package import Workout

/// The one owner of the gateway's first promise: **a finished session is never lost**
/// (contract §5, §6). Every summary the engine finishes reaches the store's queue through
/// ``finish(_:machine:timing:)`` and nowhere else; what the rule needs around it is here too.
///
/// - A finished session is stored at once, with its last plot points, in the transaction that
///   removes its checkpoint (``GatewayStore/enqueue(_:machineAddress:series:timing:)``, a write
///   that may use the store's reserve on a full disk). One the store refuses (a full disk, a
///   read-only file system, an I/O error) is held in memory and written as soon as the store
///   takes writes again: on a timer (every `window`) and before every later write, before
///   anything else of its machine (that machine's later sessions queue behind it, and its
///   checkpoints wait). Its checkpoint stays in the store until then, so a restart before the
///   store recovers closes it from there (``MachineFleet/restore(_:)``); the session id makes a
///   second attempt a no-op if the first did land. Failures are not logged one by one: the
///   store's health changes are, once (``StoreWatch``).
/// - The open sessions' periodic checkpoints (contract §5), which keep a session across a
///   crash, are gathered from every machine for `window` and saved in one transaction: one
///   `fdatasync` for the machines due in a window instead of one per machine, which on a gym
///   of ten riders was the store's largest cost per notification (docs/performance.md). A
///   checkpoint is never lost, only later by at most `window`; a batch that fails is kept whole
///   (a newer snapshot of the same machine wins) and tried again; a session that finishes or is
///   dropped first takes its pending checkpoint out and waits for a batch being written, so no
///   checkpoint of a closed session lands after the store removed it.
/// - The open sessions' plot points (at most one a second per machine) go in a batch of
///   checkpoints' transaction, so they cost no `fdatasync` of their own: a timed batch takes a
///   session's points once it holds ``CheckpointBatch/seriesBatchPoints`` of them
///   (``CheckpointBatch`` holds what waits); ``flush()`` (shutdown) takes them all, and a
///   finished session takes its waiting points into its own transaction. A crash loses at most that many seconds
///   of a session's plot, never the session.
///
/// The store's side of the rule: the reserve a full disk gives back to finished sessions only
/// (``StoreHealth``), the session journal's second copy, and the move aside of a damaged file
/// with salvage (docs/architecture.md lists them under this rule).
package actor FinishedSessionKeeper {
    /// A finished session the store has not taken yet.
    struct Held: Sendable {
        var summary: SessionSummary
        var machine: MachineIdentity
        var series: SeriesChunk?
        /// Where it lay on its boot's monotonic clock, so it is dated as it would have been.
        var timing: SessionTiming?
        var splitFrom: String?
        var since: ContinuousClock.Instant
    }

    private let store: GatewayStore
    private let window: Duration
    private let timers: any Clock<Duration>
    private let logger: Logger
    /// Called after a held session is stored: wakes the uploader.
    private let stored: @Sendable () async -> Void
    /// The open sessions' checkpoints and points for the next transaction.
    private var batch = CheckpointBatch()
    /// A plot point handed over by ``record(_:sessionID:machine:)``.
    private struct ArrivedPoint: Sendable {
        var point: SeriesPoint
        var sessionID: String
        var machine: MachineIdentity
    }
    /// Points recorded and not yet in ``batch``.
    private nonisolated let arrivedPoints = Mutex<[ArrivedPoint]>([])
    /// Finished sessions not stored yet, oldest first.
    private var held: [Held] = []
    /// The machines whose held sessions a ``writeHeld()`` has taken out and is storing now.
    private var writingMachines: Set<String> = []
    /// Held sessions a ``writeHeld()`` has taken out and not stored yet: still held, as
    /// ``heldCount`` says (a `status` asked during a retry said 0).
    private var beingStored = 0
    /// ``finish(_:machine:timing:splitFrom:)`` calls waiting for their machine's write to end.
    private var machineWriteWaiters: [CheckedContinuation<Void, Never>] = []
    private var flushScheduled = false
    private var writing: Task<Void, Never>?

    package init(
        store: GatewayStore, window: Duration, logger: Logger, timers: any Clock<Duration> = ContinuousClock(),
        stored: @escaping @Sendable () async -> Void = {}
    ) {
        self.store = store
        self.window = window
        self.logger = logger
        self.timers = timers
        self.stored = stored
    }

    /// The machines with a checkpoint waiting for the next batch.
    package var pendingCount: Int { batch.snapshots.count }

    /// Finished sessions held in memory because the store refused them, those a retry is
    /// storing right now included.
    package var heldCount: Int { held.count + beingStored }

    /// Keeps `snapshot` (replacing that machine's older one) for the batch due at most `window`
    /// from now.
    package func submit(_ snapshot: SessionSnapshot) {
        takeArrivedPoints()
        batch.submit(snapshot)
        scheduleFlush()
    }

    /// Keeps `point` of the open session `sessionID` for the next batch (it schedules none of
    /// its own: an open session's checkpoints come every few seconds). Not isolated, so that a
    /// machine's worker hands it over without a hop (one a second per machine): it waits in
    /// ``arrivedPoints`` until the keeper next looks at its batch, which it always does first.
    package nonisolated func record(_ point: SeriesPoint, sessionID: String, machine: MachineIdentity) {
        arrivedPoints.withLock { $0.append(ArrivedPoint(point: point, sessionID: sessionID, machine: machine)) }
    }

    /// Moves the points ``record(_:sessionID:machine:)`` took into ``batch``, in their order:
    /// called before every use of ``batch``.
    private func takeArrivedPoints() {
        let arrived = arrivedPoints.withLock { points in
            defer { points.removeAll(keepingCapacity: true) }
            return points
        }
        for each in arrived { batch.record(each.point, sessionID: each.sessionID, machine: each.machine) }
    }

    /// The plot points waiting for the next batch, over all sessions.
    package var pendingPoints: Int {
        takeArrivedPoints()
        return batch.points
    }

    /// What became of a session handed to ``finish(_:machine:timing:)``.
    package enum Outcome: Sendable, Equatable {
        /// Stored now, and new to the queue.
        case queued
        /// Stored now, and the queue held it already (a replayed capture, a retried hand-off),
        /// ending as late or later: the first is kept.
        case alreadyQueued
        /// Stored now in place of the queued summary of the same session, which ended earlier
        /// (seed 002 §7.3: the later `endEpoch` wins); sent again if that one was uploaded.
        case replaced
        /// Not stored: another gateway carries the session on (``handOver(sessionID:machine:to:)``).
        case handedOver
        /// Refused by the store: held in memory, written when the store takes writes again.
        case held

        /// Whether the session is in the store now.
        package var isStored: Bool { self != .held && self != .handedOver }
    }

    /// The one way a finished session goes to the store's queue: its pending checkpoint and
    /// plot points are taken out of the next batch (waiting for a batch being written), and it
    /// is stored with those points, after any of its machine's sessions still held; if the store
    /// refuses it, it is held. Returns whether it is stored now, and whether it was new there
    /// (`replay --queue` counts the captures' sessions the queue held already). A second
    /// summary of a queued session replaces it only if it ends later; one of a session handed
    /// over to another gateway is not stored (``Outcome``). `splitFrom`: the session it
    /// continues in part (``SessionProgress/splitFrom``), kept on its row for `status`.
    @discardableResult
    package func finish(
        _ summary: SessionSummary, machine: MachineIdentity, timing: SessionTiming? = nil, splitFrom: String? = nil
    ) async -> Outcome {
        let series = await discard(machineAddress: machine.address, sessionID: summary.sessionID)
        // Another call is storing this machine's older sessions: this one goes after them, and
        // in this call, which needs its answer (nothing waits between this and the write's take).
        while writingMachines.contains(machine.address) {
            await withCheckedContinuation { machineWriteWaiters.append($0) }
        }
        held.append(Held(summary: summary, machine: machine, series: series, timing: timing, splitFrom: splitFrom, since: .now))
        // The caller wakes the uploader for this one; earlier ones stored on the way count here.
        let storedNow = await writeHeld()
        if storedNow.keys.contains(where: { $0 != summary.sessionID }) { await self.stored() }
        guard let admission = storedNow[summary.sessionID] else {
            logger.error(
                "session \(summary.sessionID) finished on \(machine.name) (\(summary.duration) s) but could not be stored: held in memory, written when the store takes writes again (\(store.health.failure.map { "\($0)" } ?? "store refused it"))")
            scheduleFlush()
            return .held
        }
        return switch admission {
        case .added: .queued
        case .replaced: .replaced
        case .kept: .alreadyQueued
        case .handedOver: .handedOver
        }
    }

    /// The open session `sessionID` on `machine` is carried on by another gateway, `gateway`
    /// (issue 37: it adopted the machine from this gateway's mirrored checkpoint): its pending
    /// checkpoint and plot points go (waiting for a batch being written), a summary of it held
    /// in memory goes, and the store removes its checkpoint, its open series and a pending
    /// summary of it and remembers where it went (``GatewayStore/handOver(sessionID:machineAddress:to:)``).
    /// It is never uploaded from here; a later ``finish(_:machine:timing:splitFrom:)`` of it is
    /// not stored, unless this gateway checkpoints it again first (it took it back). Throws
    /// when the store refuses the write: the session is then kept as it was, and the caller
    /// tries again (a session is never dropped on a failed write).
    package func handOver(sessionID: String, machine: MachineIdentity, to gateway: String) async throws {
        await discard(machineAddress: machine.address, sessionID: sessionID)
        let before = held
        held.removeAll { $0.summary.sessionID == sessionID }
        do {
            try await store.handOver(sessionID: sessionID, machineAddress: machine.address, to: gateway)
        } catch {
            held = before
            throw error
        }
        logger.notice("session \(sessionID) on \(machine.name) is carried on by gateway \(gateway): handed over, not uploaded from here")
    }

    /// A session dropped by the engine (too short, say): its pending checkpoint and points go,
    /// then its checkpoint and open series in the store.
    package func drop(sessionID: String, machine: MachineIdentity) async {
        await discard(machineAddress: machine.address, sessionID: sessionID)
        do {
            try await store.remove(machineAddress: machine.address, sessionID: sessionID)
        } catch {
            logger.warning("checkpoint of dropped session \(sessionID) not removed: \(error)")
        }
    }

    /// Saves an open session's checkpoint now (shutdown), with whatever other machines have
    /// pending; a failure is kept for the next try.
    package func checkpointNow(_ snapshot: SessionSnapshot) async {
        submit(snapshot)
        await flush()
    }

    /// Writes everything pending now, after any batch already being written, and returns when
    /// it is durable (or has failed and been kept for the next try).
    package func flush() async {
        await flush(allPoints: true)
    }

    /// `allPoints: false` (a timed batch): only the sessions holding
    /// ``CheckpointBatch/seriesBatchPoints`` points give them up; the others keep them for a
    /// later batch.
    private func flush(allPoints: Bool) async {
        if !(await writeHeld()).isEmpty { await stored() }
        await finishWriting()
        // A machine with a session held waits with its checkpoints and points until it is stored.
        takeArrivedPoints()
        let due = batch.take(allPoints: allPoints, except: Set(held.map(\.machine.address)).union(writingMachines))
        guard !due.snapshots.isEmpty || !due.series.isEmpty else {
            if !held.isEmpty { scheduleFlush() }
            return
        }
        let task = Task { await self.write(due.snapshots, due.series) }
        writing = task
        await task.value
        // A batch that went in while a session is still held: the timer tries that one again.
        if !held.isEmpty { scheduleFlush() }
    }

    /// Forgets the pending checkpoint of `sessionID` on `machineAddress` and waits for a batch
    /// in flight, so that the store's removal of the session's checkpoint comes after it.
    /// Returns the session's plot points not yet stored, which a finished session takes into its
    /// own transaction (and a dropped one lets go).
    @discardableResult
    package func discard(machineAddress: String, sessionID: String) async -> SeriesChunk? {
        batch.forgetCheckpoint(machineAddress: machineAddress, sessionID: sessionID)
        await finishWriting()
        // A failed batch puts its snapshots and points back before it finishes.
        batch.forgetCheckpoint(machineAddress: machineAddress, sessionID: sessionID)
        takeArrivedPoints()
        return batch.takeSeries(sessionID: sessionID)
    }

    private func finishWriting() async {
        while let current = writing { await current.value }
    }

    /// Stores the held sessions, oldest first; a machine whose oldest is refused keeps the rest
    /// of its own behind it, and the others go on. Returns the ids stored, each with what it
    /// did to the queue. The only call of the store's queueing of a summary.
    ///
    /// The sessions are taken out of ``held`` before the first wait, and the machines marked
    /// as being written: a call that comes meanwhile (a timed flush while ``finish(_:machine:timing:splitFrom:)``
    /// stores its session, seen in a loaded VM guest) neither stores one a second time (the
    /// journal said "finished" twice) nor puts back or stores out of order a session of a
    /// machine this call holds; it leaves that machine's sessions to this call's end.
    private func writeHeld() async -> [String: QueueAdmission] {
        let busy = writingMachines
        let taken = held.filter { !busy.contains($0.machine.address) }
        guard !taken.isEmpty else { return [:] }
        held.removeAll { !busy.contains($0.machine.address) }
        let machines = Set(taken.map(\.machine.address))
        writingMachines.formUnion(machines)
        beingStored += taken.count
        defer {
            writingMachines.subtract(machines)
            for waiter in machineWriteWaiters { waiter.resume() }
            machineWriteWaiters.removeAll()
        }
        var refused: Set<String> = []
        var kept: [Held] = []
        var storedIDs: [String: QueueAdmission] = [:]
        for session in taken {
            guard !refused.contains(session.machine.address) else {
                kept.append(session)
                continue
            }
            do {
                let admission = try await store.enqueue(
                    session.summary, machineAddress: session.machine.address, series: session.series, timing: session.timing,
                    splitFrom: session.splitFrom)
                beingStored -= 1
                storedIDs[session.summary.sessionID] = admission
                guard admission != .handedOver else {
                    logger.info("session \(session.summary.sessionID) finished on \(session.machine.name) after it was handed over to another gateway: not uploaded from here")
                    continue
                }
                let dates = session.timing?.datesAreTrue == false ? "; its dates wait for a synchronised clock (contract §5)" : ""
                logger.info(
                    "session \(session.summary.sessionID) finished on \(session.machine.name): \(session.summary.duration) s, queued for upload\(dates)")
                if session.since.duration(to: .now) > .seconds(1) {
                    logger.notice("session \(session.summary.sessionID) on \(session.machine.name), held in memory while the store refused writes, is stored")
                }
            } catch {
                refused.insert(session.machine.address)
                kept.append(session)
            }
        }
        // Those refused go back ahead of any of their machines' finished meanwhile, oldest first.
        held = kept + held
        beingStored -= kept.count
        return storedIDs
    }

    private func write(_ snapshots: [String: SessionSnapshot], _ points: [String: SeriesChunk]) async {
        do {
            try await store.saveAll(Array(snapshots.values), series: Array(points.values))
        } catch {
            // Once, not every window: the store's health change says it when writes start failing.
            logger.debug("checkpoints of \(snapshots.count) open session(s) not saved, kept for the next try: \(error)")
            takeArrivedPoints()
            batch.putBack(snapshots: snapshots, series: points)
            scheduleFlush()
        }
        writing = nil
    }

    private func scheduleFlush() {
        takeArrivedPoints()
        guard !flushScheduled, !batch.isEmpty || !held.isEmpty else { return }
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
