package import BlueZ
package import FTMS
import NIOCore
import Workout
import Telemetry

/// One machine's live pipeline in the daemon: supervisor events in, samples and session
/// events out, checkpoints on the engine's schedule (contract §5).
///
/// An actor because events from the supervisor and the session timer arrive concurrently.
/// It outlives connections: a machine that drops and comes back within the grace continues
/// its session here. It is ticked (by the fleet's one ``SessionTicker``) only while a session
/// is open, so an idle gym costs no wake-ups.
///
/// It runs on the fleet's event loop, pinned there rather than left to whatever executor the
/// process made global: its publishes then find the metrics socket's server on its own loop and
/// write there and then (``MetricsServer/publish(_:machine:sessionID:state:forwarding:writing:)``),
/// in the daemon and in a test alike.
package actor MachineWorker {
    package private(set) var name: String
    package private(set) var address: String
    package private(set) var state: MachineState = .discovered
    package private(set) var info: MachineInfo?
    package private(set) var notifications = 0
    /// Of ``notifications``, those handled in the turn that read them (``notificationNow(_:_:)``).
    package private(set) var handledDirectly = 0
    package private(set) var lastError: String?
    /// The adapter (`hci1`) of its link or last attempt, and why (the link budget, contract §2).
    package private(set) var adapter: String?
    package private(set) var adapterReason: String?
    private var identity: MachineIdentity?
    private var pipeline: MachinePipeline?
    private let sink: SessionSink
    private let clock: DaemonClock
    private let rules: SessionRules
    private let ticker: SessionTicker
    /// Whether ``ticker`` ticks this worker (an open session).
    private var ticked = false
    private var restoredEvents = SessionEvents()
    /// The part of a notification handled directly that has to wait, while it runs
    /// (``notificationNow(_:_:)``).
    private var tail: Task<Void, Never>?
    /// A split the floor asked for before the machine said what it is (``splitting(from:)``).
    private var pendingSplit: String?
    private let metrics: DaemonMetrics?
    /// Prometheus' notification counters by characteristic, resolved on first use.
    private var notificationCounters: [Characteristic: CounterHandle] = [:]
    private nonisolated let executor: any SerialExecutor
    package nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(
        name: String, address: String, sink: SessionSink, clock: DaemonClock, rules: SessionRules,
        ticker: SessionTicker, eventLoop: any EventLoop, metrics: DaemonMetrics? = nil
    ) {
        executor = eventLoop.executor
        self.metrics = metrics
        self.ticker = ticker
        self.name = name
        self.address = address
        self.sink = sink
        self.clock = clock
        self.rules = rules
    }

    /// A worker carrying on a checkpointed session (contract §5: resumed or closed, never lost).
    /// Call ``start()`` to deliver what the downtime already decided.
    init(
        restoring snapshot: SessionSnapshot, sink: SessionSink, clock: DaemonClock, rules: SessionRules,
        ticker: SessionTicker, eventLoop: any EventLoop, metrics: DaemonMetrics? = nil
    ) {
        let restored = MachinePipeline.restoring(snapshot, rules: rules, ids: RandomSessionIDs(using: SystemRandomNumberGenerator()), at: clock.now())
        self.init(
            carrying: snapshot.machine, pipeline: restored.pipeline, events: restored.events, sink: sink, clock: clock, rules: rules,
            ticker: ticker, eventLoop: eventLoop, metrics: metrics)
    }

    /// A worker carrying on another gateway's session from its mirrored checkpoint, which
    /// arrived at `arrival` on this gateway's monotonic clock (the floor's adoption): the same
    /// session id, the time without a holder an outage. Call ``start()`` as for a restored one.
    init(
        adopting snapshot: SessionSnapshot, arrivedAt arrival: Duration, sink: SessionSink, clock: DaemonClock, rules: SessionRules,
        ticker: SessionTicker, eventLoop: any EventLoop, metrics: DaemonMetrics? = nil
    ) {
        let adopted = MachinePipeline.adopting(
            snapshot, arrivedAt: arrival, rules: rules, ids: RandomSessionIDs(using: SystemRandomNumberGenerator()), at: clock.now())
        self.init(
            carrying: snapshot.machine, pipeline: adopted.pipeline, events: adopted.events, sink: sink, clock: clock, rules: rules,
            ticker: ticker, eventLoop: eventLoop, metrics: metrics)
    }

    /// A disconnected worker holding a session carried on (restored or adopted), with the
    /// events its downtime already decided.
    private init(
        carrying machine: MachineIdentity, pipeline: MachinePipeline, events: SessionEvents, sink: SessionSink, clock: DaemonClock,
        rules: SessionRules, ticker: SessionTicker, eventLoop: any EventLoop, metrics: DaemonMetrics?
    ) {
        executor = eventLoop.executor
        self.metrics = metrics
        self.ticker = ticker
        name = machine.name
        address = machine.address
        self.sink = sink
        self.clock = clock
        self.rules = rules
        self.pipeline = pipeline
        identity = machine
        state = .disconnected
        restoredEvents = events
    }

    /// The next session started here continues a ride another gateway held whose checkpoint
    /// never reached the broker: it says it split from `sessionID`.
    func splitting(from sessionID: String) {
        if pipeline == nil { pendingSplit = sessionID } else { pipeline?.splitting(from: sessionID) }
    }

    /// The open session as it stands now (a fresh checkpoint to mirror before a handover).
    func snapshotNow() -> SessionSnapshot? {
        pipeline?.engine.snapshot(at: clock.now())
    }

    /// Lets the open session go without ending it: another gateway carries it on. Returns the
    /// machine it was on; the worker is then idle and is dropped by the fleet.
    func letGo() async -> MachineIdentity? {
        await settle()
        if ticked {
            ticked = false
            await ticker.unregister(self)
        }
        pipeline = nil
        return identity
    }

    /// Delivers a restored session's first events and starts its timer.
    package func start() async {
        await settle()
        let events = restoredEvents
        restoredEvents = SessionEvents()
        if let identity, !events.isEmpty { await sink.deliver(events, machine: identity) }
        await updateTicker()
    }

    package var status: MachineStatus {
        MachineStatus(
            name: name, address: address, type: identity?.type, model: identity?.model ?? info?.model,
            manufacturer: info?.manufacturer, state: state, sessionID: pipeline?.engine.openSessionID,
            notifications: notifications, lastError: lastError, adapter: adapter, adapterReason: adapterReason,
            notify: info?.dataNotifyPath?.wireName)
    }

    package var openSessionID: String? { pipeline?.engine.openSessionID }

    package func connecting(_ target: MachineTarget) async {
        await settle()
        if let name = target.name { self.name = name }
        if let address = target.address { self.address = address }
        state = .connecting
        await sink.publisher.machine(currentIdentity, state: state.payloadName, adapter: adapter, adapterReason: adapterReason)
    }

    /// The next attempt goes through `adapter` (a path or a name) for `reason`.
    package func placed(adapter: String, reason: String) {
        self.adapter = AdapterBudget.name(adapter)
        adapterReason = reason
    }

    /// No adapter with room hears it: it stays `discovered`, saying why.
    package func waiting(_ target: MachineTarget, reason: String) async {
        await settle()
        if let name = target.name { self.name = name }
        if let address = target.address { self.address = address }
        adapter = nil
        adapterReason = reason
        if state == .connecting { state = .discovered }
        await sink.publisher.machine(currentIdentity, state: state.payloadName, adapter: nil, adapterReason: reason)
    }

    package func ready(_ info: MachineInfo) async {
        await settle()
        self.info = info
        name = info.name
        address = info.address
        state = .ready
        lastError = nil
        adopt(info.type)
        await sink.publisher.machine(
            currentIdentity, state: state.payloadName, manufacturer: info.manufacturer, notify: info.dataNotifyPath?.wireName,
            adapter: adapter, adapterReason: adapterReason, features: info.features)
        guard let identity else { return }
        let now = clock.now()
        if let events = pipeline?.connected(at: now), !events.isEmpty { await sink.deliver(events, machine: identity) }
        await updateTicker()
    }

    /// A notification handled on the event loop in the turn that read it (``MachineFleet``
    /// hands it over past the supervisor's stream when nothing is queued before it): decoded,
    /// published, its plot point kept, all before this returns. What has to wait (session
    /// events, a due checkpoint: a few in a minute) runs in ``tail``, and until it is done every
    /// later notification and event waits behind it, through the stream and ``settle()``, as they
    /// would have behind ``notification(_:_:)``. Returns false, having done nothing, when the
    /// notification must take that way: a tail still running, no pipeline yet (the first frame of
    /// a generic machine, which adopts one), or a metrics socket on another loop.
    package func notificationNow(_ characteristic: Characteristic, _ bytes: [UInt8]) -> Bool {
        guard tail == nil, pipeline != nil, identity != nil, sink.publisher.publishesHere else { return false }
        handledDirectly &+= 1
        guard let (output, checkpoint, identity) = run(characteristic, bytes) else { return true }
        if let sample = output.sample {
            sink.publisher.sampleNow(sample, machine: identity.name, sessionID: output.sessionID, session: output.progress)
        }
        if let status = output.status { sink.publisher.statusNow(status, machine: identity.name, sessionID: output.sessionID) }
        guard !output.events.isEmpty || checkpoint != nil else { return true }
        tail = Task {
            await finish(output.events, checkpoint, identity)
            tail = nil
        }
        return true
    }

    /// Waits until the rest of a notification handled directly (``notificationNow(_:_:)``) is done.
    private func settle() async {
        while let running = tail { await running.value }
    }

    package func notification(_ characteristic: Characteristic, _ bytes: [UInt8]) async {
        await settle()
        if pipeline == nil {
            // A generic FTMS machine says what it is by the data it sends.
            switch characteristic {
            case .indoorBikeData: adopt(.bike)
            case .rowerData: adopt(.rower)
            default:
                notifications &+= 1
                countNotification(characteristic)
                return
            }
            if let events = pipeline?.connected(at: clock.now()), let identity, !events.isEmpty {
                await sink.deliver(events, machine: identity)
            }
        }
        guard let (output, checkpoint, identity) = run(characteristic, bytes) else { return }
        if let sample = output.sample {
            await sink.publisher.sample(sample, machine: identity.name, sessionID: output.sessionID, session: output.progress)
        }
        if let status = output.status { await sink.publisher.status(status, machine: identity.name, sessionID: output.sessionID) }
        await finish(output.events, checkpoint, identity)
    }

    /// What both ways of taking a notification share: counted, run through the pipeline, its
    /// plot point kept. Returns what is left to publish and wait for (the sample and status,
    /// session events, a due checkpoint); nil without a pipeline or an identity.
    private func run(
        _ characteristic: Characteristic, _ bytes: [UInt8]
    ) -> (output: MachinePipeline.Output, checkpoint: SessionSnapshot?, identity: MachineIdentity)? {
        notifications &+= 1
        countNotification(characteristic)
        let now = clock.now()
        guard let output = bytes.withUnsafeBytes({ pipeline?.notification(characteristic, $0, at: now) }), let identity else { return nil }
        if output.malformed { metrics?.decodeFailed(characteristic: "\(characteristic.jsonName)") }
        if let point = output.seriesPoint, let sessionID = output.sessionID { sink.record(point, sessionID: sessionID, machine: identity) }
        return (output, pipeline?.checkpointIfDue(at: now), identity)
    }

    /// A notification's session events, then its due checkpoint: what has to wait.
    private func finish(_ events: SessionEvents, _ checkpoint: SessionSnapshot?, _ identity: MachineIdentity) async {
        if !events.isEmpty {
            await sink.deliver(events, machine: identity)
            await updateTicker()
        }
        if let checkpoint { await sink.checkpointSoon(checkpoint) }
    }

    package func disconnected(reason: String) async {
        await settle()
        guard state == .ready || state == .connecting else { return }
        state = .disconnected
        lastError = reason
        await sink.publisher.machine(currentIdentity, state: state.payloadName, reason: reason, adapter: adapter)
        guard let identity, let events = pipeline?.disconnected(at: clock.now()) else { return }
        if !events.isEmpty { await sink.deliver(events, machine: identity) }
        if let snapshot = pipeline?.checkpointIfDue(at: clock.now()) { await sink.checkpointSoon(snapshot) }
        await updateTicker()
    }

    package func failed(reason: String) {
        lastError = reason
    }

    /// The daemon is stopping: the open session is checkpointed as it stands (not closed),
    /// so a restart within the disconnect grace carries it on.
    /// Returns whether a session was open.
    @discardableResult
    package func shutdown() async -> Bool {
        await settle()
        if ticked {
            ticked = false
            await ticker.unregister(self)
        }
        guard let snapshot = pipeline?.engine.snapshot(at: clock.now()) else { return false }
        await sink.checkpoint(snapshot)
        return true
    }

    /// One tick of the session engine; false when no session is open (the ticker then stops
    /// ticking this worker until ``updateTicker()`` registers it again).
    func tick() async -> Bool {
        await settle()
        if let identity {
            let now = clock.now()
            if let events = pipeline?.tick(at: now), !events.isEmpty { await sink.deliver(events, machine: identity) }
            if let snapshot = pipeline?.checkpointIfDue(at: now) { await sink.checkpointSoon(snapshot) }
        }
        let open = pipeline?.engine.openSessionID != nil
        if !open { ticked = false }
        return open
    }

    /// Counts a notification in Prometheus without building or looking up its label each time.
    private func countNotification(_ characteristic: Characteristic) {
        guard let metrics else { return }
        if let counter = notificationCounters[characteristic] {
            counter.increment()
            return
        }
        let counter = metrics.notificationCounter(characteristic: "\(characteristic.jsonName)")
        notificationCounters[characteristic] = counter
        counter.increment()
    }

    /// What the machine is known to be so far; before it is ready, its name says bike or rower.
    private var currentIdentity: MachineIdentity {
        identity ?? MachineIdentity(name: name, address: address, model: info?.model, type: MachineType(machineName: name) ?? .bike)
    }

    private func adopt(_ type: MachineType) {
        let machine = MachineIdentity(name: name, address: address, model: info?.model ?? identity?.model, type: type)
        identity = machine
        if pipeline == nil {
            pipeline = MachinePipeline(machine: machine, rules: rules, ids: RandomSessionIDs(using: SystemRandomNumberGenerator()))
            if let pendingSplit { pipeline?.splitting(from: pendingSplit) }
            pendingSplit = nil
        } else {
            pipeline?.identify(machine)
        }
    }

    /// Asks the fleet's ticker for ticks once a session is open; the ticker drops the worker
    /// when a ``tick()`` finds none open, so no order of these calls can leave an open session
    /// without ticks.
    private func updateTicker() async {
        guard !ticked, pipeline?.engine.openSessionID != nil else { return }
        ticked = true
        await ticker.register(self)
    }
}
