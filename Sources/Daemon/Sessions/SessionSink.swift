package import Logging
package import Publish
package import Store
package import Workout

/// Where a machine's session events go, in the order that keeps the backend's promise (never
/// lose, never double): a finished session is handed to the ``FinishedSessionKeeper``, which
/// commits it to the store (removing its checkpoint in the same transaction) or holds it,
/// before the socket hears of it or the uploader is woken.
package struct SessionSink: Sendable {
    package let keeper: FinishedSessionKeeper
    package let publisher: LivePublisher
    package let logger: Logger
    /// Called after a finished session is durable: wakes the uploader.
    package let sessionStored: @Sendable () async -> Void
    /// Told of every event after it is handled, for the Prometheus counters.
    package let observe: @Sendable (SessionEvent) -> Void

    package init(
        keeper: FinishedSessionKeeper, publisher: LivePublisher, logger: Logger,
        sessionStored: @escaping @Sendable () async -> Void = {},
        observe: @escaping @Sendable (SessionEvent) -> Void = { _ in }
    ) {
        self.keeper = keeper
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
            // Stored now, or held in memory and stored as soon as the store takes writes.
            stored = await keeper.finish(summary, machine: machine, timing: progress.timing).isStored
        case .dropped(_, let reason, let summary):
            await keeper.drop(sessionID: summary.sessionID, machine: machine)
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
    /// for the next batch of checkpoints.
    package nonisolated(nonsending) func record(_ point: SeriesPoint, sessionID: String, machine: MachineIdentity) async {
        await keeper.record(point, sessionID: sessionID, machine: machine)
    }

    /// A periodic checkpoint: into the next batch.
    package nonisolated(nonsending) func checkpointSoon(_ snapshot: SessionSnapshot) async {
        await keeper.submit(snapshot)
    }

    /// Saves an open session's checkpoint now (shutdown), with whatever other machines have
    /// pending; a failure is kept for the next try.
    package func checkpoint(_ snapshot: SessionSnapshot) async {
        await keeper.checkpointNow(snapshot)
    }
}
