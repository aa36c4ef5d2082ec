package import Logging
package import Publish
package import Store
package import Workout

/// Where a machine's session events go, in the order that keeps the backend's promise (never
/// lose, never double): a finished session is committed to the store (which removes its
/// checkpoint in the same transaction) before the socket hears of it or the uploader is
/// woken. A session the store refuses is held by the ``CheckpointBatcher`` and stored as soon
/// as the store takes writes again; its checkpoint stays meanwhile, so a restart finishes the
/// job; the session id makes a second attempt a no-op if the first did land.
package struct SessionSink: Sendable {
    package let store: GatewayStore
    package let publisher: LivePublisher
    package let logger: Logger
    /// Called after a finished session is durable: wakes the uploader.
    package let sessionStored: @Sendable () async -> Void
    /// Told of every event after it is handled, for the Prometheus counters.
    package let observe: @Sendable (SessionEvent) -> Void
    /// Gathers periodic checkpoints into one transaction per window; `nil`: each is saved at once.
    package let checkpoints: CheckpointBatcher?

    package init(
        store: GatewayStore, publisher: LivePublisher, logger: Logger,
        sessionStored: @escaping @Sendable () async -> Void = {}, checkpoints: CheckpointBatcher? = nil,
        observe: @escaping @Sendable (SessionEvent) -> Void = { _ in }
    ) {
        self.checkpoints = checkpoints
        self.store = store
        self.publisher = publisher
        self.logger = logger
        self.sessionStored = sessionStored
        self.observe = observe
    }

    /// Runs on the caller's executor (a machine's worker, on the metrics socket's loop), so
    /// the socket hears of each event there and then, not after a hop off the loop and back.
    package nonisolated(nonsending) func deliver(_ events: SessionEvents, machine: MachineIdentity) async {
        for event in events {
            await deliver(event, machine: machine)
        }
    }

    package nonisolated(nonsending) func deliver(_ event: SessionEvent, machine: MachineIdentity) async {
        var stored = false
        switch event {
        case .finished(let progress, let summary):
            let series = await checkpoints?.discard(machineAddress: machine.address, sessionID: summary.sessionID)
            if let checkpoints {
                // Stored now, or held in memory and stored as soon as the store takes writes.
                stored = await checkpoints.finish(summary, machine: machine, series: series, timing: progress.timing)
            } else {
                do {
                    try await store.enqueue(summary, machineAddress: machine.address, series: series, timing: progress.timing)
                    stored = true
                    let dates = progress.timing?.datesAreTrue == false ? "; its dates wait for a synchronised clock (contract §5)" : ""
                    logger.info("session \(summary.sessionID) finished on \(machine.name): \(summary.duration) s, queued for upload\(dates)")
                } catch {
                    logger.error("session \(summary.sessionID) on \(machine.name) could not be stored (its checkpoint is kept): \(error)")
                }
            }
        case .dropped(_, let reason, let summary):
            await checkpoints?.discard(machineAddress: machine.address, sessionID: summary.sessionID)
            do {
                try await store.remove(machineAddress: machine.address, sessionID: summary.sessionID)
            } catch {
                logger.warning("checkpoint of dropped session \(summary.sessionID) not removed: \(error)")
            }
            logger.info("session \(summary.sessionID) on \(machine.name) dropped: \(reason.rawValue)")
        case .started(let progress):
            logger.info("session \(progress.sessionID) started on \(machine.name)")
        case .paused, .resumed:
            break
        }
        await publisher.session(event, machine: machine.name)
        observe(event)
        if stored { await sessionStored() }
    }

    /// One plot point of the open session `sessionID` (at most one a second per machine): kept
    /// for the next batch of checkpoints. Without a batcher, series are not recorded.
    package nonisolated(nonsending) func record(_ point: SeriesPoint, sessionID: String, machine: MachineIdentity) async {
        await checkpoints?.record(point, sessionID: sessionID, machine: machine)
    }

    /// A periodic checkpoint: into the next batch if there is a batcher, else saved at once.
    package nonisolated(nonsending) func checkpointSoon(_ snapshot: SessionSnapshot) async {
        guard let checkpoints else { return await checkpoint(snapshot) }
        await checkpoints.submit(snapshot)
    }

    /// Saves an open session's checkpoint now (shutdown), with whatever other machines have
    /// pending; a failure is logged and the next one tries again.
    package func checkpoint(_ snapshot: SessionSnapshot) async {
        if let checkpoints {
            await checkpoints.submit(snapshot)
            return await checkpoints.flush()
        }
        do {
            try await store.save(snapshot)
        } catch {
            logger.warning("checkpoint of session \(snapshot.sessionID) not saved: \(error)")
        }
    }
}
