package import Logging
package import Publish
package import Store
package import Workout

/// Where a machine's session events go, in the order that keeps the backend's promise (never
/// lose, never double): a finished session is handed to the ``FinishedSessionKeeper``, which
/// commits it to the store (removing its checkpoint in the same transaction) or holds it,
/// before the socket hears of it or the uploader is woken.
///
/// With the floor on (issue 37), ``mirror`` hears of every checkpoint and every session's end
/// for the broker. A session another gateway carries on (handed over: the keeper does not store
/// it) is not announced as finished here, on the socket, MQTT or to the counters: the gateway
/// that carries it on announces its end, and a ride is counted once.
package struct SessionSink: Sendable {
    package let keeper: FinishedSessionKeeper
    package let publisher: LivePublisher
    package let logger: Logger
    /// Called after a finished session is durable: wakes the uploader.
    package let sessionStored: @Sendable () async -> Void
    /// Told of every event after it is handled, for the Prometheus counters.
    package let observe: @Sendable (SessionEvent) -> Void
    /// Told of each checkpoint the engine makes and each session's end, for the floor's
    /// coordinator to mirror them to the broker (``SessionMirrorEvent``); `nil` (the floor off)
    /// costs nothing. Called on the machine's worker, in order: it must return at once (hand
    /// the event to a stream or an actor's mailbox, never wait for the broker).
    package let mirror: (@Sendable (SessionMirrorEvent) -> Void)?

    package init(
        keeper: FinishedSessionKeeper, publisher: LivePublisher, logger: Logger,
        sessionStored: @escaping @Sendable () async -> Void = {},
        observe: @escaping @Sendable (SessionEvent) -> Void = { _ in },
        mirror: (@Sendable (SessionMirrorEvent) -> Void)? = nil
    ) {
        self.keeper = keeper
        self.publisher = publisher
        self.logger = logger
        self.sessionStored = sessionStored
        self.observe = observe
        self.mirror = mirror
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
            let outcome = await keeper.finish(summary, machine: machine, timing: progress.timing, splitFrom: progress.splitFrom)
            // Another gateway carries it on and announces its end: counted once, there.
            if outcome == .handedOver { return }
            stored = outcome.isStored
            mirror?(.finished(sessionID: summary.sessionID, machine: machine, endEpoch: summary.endedAt.secondsSince1970, splitFrom: progress.splitFrom))
        case .dropped(_, let reason, let summary):
            await keeper.drop(sessionID: summary.sessionID, machine: machine)
            logger.info("session \(summary.sessionID) on \(machine.name) dropped: \(reason.rawValue)")
            mirror?(.dropped(sessionID: summary.sessionID, machine: machine))
        case .started(let progress):
            let split = progress.splitFrom.map { ", split from \($0) (another gateway's ride this one could not carry on)" } ?? ""
            logger.info("session \(progress.sessionID) started on \(machine.name)\(split)")
        case .paused, .resumed:
            break
        }
        await publisher.session(event, machine: machine.name)
        observe(event)
        if stored { await sessionStored() }
    }

    /// One plot point of the open session `sessionID` (at most one a second per machine): kept
    /// for the next batch of checkpoints, handed over without waiting.
    package func record(_ point: SeriesPoint, sessionID: String, machine: MachineIdentity) {
        keeper.record(point, sessionID: sessionID, machine: machine)
    }

    /// A periodic checkpoint: into the next batch, and to the mirror.
    package nonisolated(nonsending) func checkpointSoon(_ snapshot: SessionSnapshot) async {
        mirror?(.checkpoint(snapshot))
        await keeper.submit(snapshot)
    }

    /// Saves an open session's checkpoint now (shutdown), with whatever other machines have
    /// pending; a failure is kept for the next try. The mirror hears of it first.
    package func checkpoint(_ snapshot: SessionSnapshot) async {
        mirror?(.checkpoint(snapshot))
        await keeper.checkpointNow(snapshot)
    }
}
