import Clocks
package import BlueZ
package import DBus
package import Logging
package import NIOCore
package import Workout
package import Telemetry
import RetryTiming
import Synchronization

/// Keeps every allowed machine connected, several at once and across adapters (contract §2),
/// and survives the system bus itself going away: when dbus-daemon restarts, the
/// connection, the BlueZ client and every supervisor are rebuilt, while the workers — and
/// the sessions they hold — carry on as disconnected machines within their grace.
///
/// With an allow-list, one supervisor per entry finds its machine. Without one, the fleet
/// adopts each new machine the filter takes, up to `maxConnected`. Either way searching is
/// driven by events, not timers: discovery stays on while a machine is missing
/// (`MachineFleet+Discovery.swift`), and a machine heard advertising is adopted, or its
/// reconnect backoff cut short, at once.
///
/// The fleet and its workers run on one event loop (`eventLoop`), the daemon's, where its
/// metrics socket and AcquireNotify's sockets are served: a notification read there reaches
/// the fleet's `route`, the machine's worker and the socket's readers in the one job its
/// arrival makes, as a call between actors on the same executor is no hop.
package actor MachineFleet {
    package private(set) var settings: FleetSettings
    let sink: SessionSink
    let clock: DaemonClock
    let rules: SessionRules
    let logger: Logger
    private let resistanceForms: ResistanceFormMemory
    private let random: @Sendable () -> Double
    /// Every pause and timeout of the fleet, its BlueZ client and its machines (see ``EventLoopClock``).
    let timers: any Clock<Duration>
    /// Workers by upper-cased address: they outlive connections and bus restarts.
    var workers: [String: MachineWorker] = [:]
    /// Each supervised machine, by key, with where its link stands.
    var supervised: [String: Supervised] = [:]
    /// When each machine waiting to reconnect was last heard (see ``AdvertisementLog``).
    var advertisements: AdvertisementLog
    /// Something the fleet's discovery depends on changed (a connect began or ended, a
    /// machine linked or dropped): ``followMachines(_:)`` looks again.
    var fleetChange = WakeSignal.quiet
    /// The link budget of the current bus connection; its supervisors claim their adapters here.
    private var budget: AdapterBudget?
    package private(set) var busConnected = false
    package private(set) var busError: String?
    /// Times the bus connection was (re)made, for status and the tests of bus restarts.
    package private(set) var busConnections = 0
    /// Machines ready, notifications and decode errors, for Prometheus.
    let metrics: DaemonMetrics?
    /// The one timer that ticks every open session.
    let ticker: SessionTicker
    /// Who reads AcquireNotify's sockets (the daemon's event loop); `nil`: the bus thread.
    private let datagramReader: (any DatagramReader)?
    /// New machine settings (SIGHUP): the bus connection's supervisors stop and start again.
    private var restart = WakeSignal.quiet
    /// The gym's floor (`[fleet]` on), which places machines among the gateways; nil: this
    /// gateway is an island and connects what its allow list names (see ``FloorHooks``).
    let floor: (any FloorHooks)?
    /// The BlueZ client of the current bus connection, for ``take(_:)`` and ``sightings()``.
    var client: BlueZClient?
    /// Why each machine being released stops (``release(_:reason:)``), for its worker's last word.
    var releasing: [String: String] = [:]

    /// The loop the fleet and its workers run on (see the type's comment).
    private nonisolated let executor: any SerialExecutor
    package nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    let eventLoop: any EventLoop

    struct Supervised {
        let supervisor: MachineSupervisor
        let run: Task<Void, Never>
        let route: Task<Void, Never>
        var link = MachineLinkState.unlinked
    }

    /// - Parameter eventLoop: where the fleet and its workers run: the loop the metrics socket
    ///   and `datagramReader` are served on, so that a notification is one job on it.
    package init(
        settings: FleetSettings, sink: SessionSink, clock: DaemonClock, rules: SessionRules, logger: Logger,
        eventLoop: any EventLoop, resistanceForms: ResistanceFormMemory = ResistanceFormMemory(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        metrics: DaemonMetrics? = nil, timers: any Clock<Duration> = ContinuousClock(),
        datagramReader: (any DatagramReader)? = nil, floor: (any FloorHooks)? = nil
    ) {
        self.floor = floor
        self.timers = timers
        self.datagramReader = datagramReader
        self.eventLoop = eventLoop
        executor = eventLoop.executor
        ticker = SessionTicker(timers: timers)
        self.settings = settings
        self.sink = sink
        self.clock = clock
        self.rules = rules
        self.logger = logger
        self.resistanceForms = resistanceForms
        self.random = random
        self.metrics = metrics
        advertisements = AdvertisementLog(quiet: settings.wakeQuiet)
    }

    /// Carries on checkpointed sessions: each becomes a disconnected machine whose session
    /// resumes if it reconnects within the grace, and is closed by its timer otherwise.
    ///
    /// Checkpoints are kept per session, so a machine may have several: a finished session the
    /// store could not take before the daemon stopped, then the machine's next. Only the newest
    /// can be carried on; the older ones are closed where their checkpoints stood and queued.
    package func restore(_ snapshots: [SessionSnapshot]) async {
        let byMachine = Dictionary(grouping: snapshots) { $0.machine.address.uppercased() }
        for (key, group) in byMachine.sorted(by: { $0.key < $1.key }) {
            let ordered = group.sorted {
                ($0.savedAt.millisecondsSince1970, $0.sessionID) < ($1.savedAt.millisecondsSince1970, $1.sessionID)
            }
            for older in ordered.dropLast() {
                guard let event = SessionEngine.closing(older, rules: rules) else { continue }
                logger.info("session \(older.sessionID) on \(older.machine.name) closed from its checkpoint: a later session of the machine was checkpointed after it")
                await sink.deliver(event, machine: older.machine)
            }
            guard let snapshot = ordered.last, workers[key] == nil else { continue }
            let worker = MachineWorker(
                restoring: snapshot, sink: sink, clock: clock, rules: rules, ticker: ticker, eventLoop: eventLoop, metrics: metrics)
            workers[key] = worker
            logger.info("session \(snapshot.sessionID) on \(snapshot.machine.name) restored from its checkpoint")
            await worker.start()
        }
    }

    /// Runs until cancelled, then disconnects every machine and checkpoints open sessions.
    package func run() async {
        var backoff = settings.busBackoff
        while !Task.isCancelled {
            let connection: DBusConnection
            let client: BlueZClient
            do {
                connection = try await DBusConnection.connect(address: settings.busAddress, datagramReader: datagramReader)
                client = BlueZClient(connection: connection, clock: timers)
                do {
                    try await client.start()
                } catch {
                    connection.close()
                    throw error
                }
            } catch {
                busConnected = false
                busError = "\(error)"
                let delay = backoff.next(random: random())
                logger.error("system bus unreachable (\(error)); next try in \(Self.seconds(delay)) s")
                try? await timers.sleep(for: delay)
                continue
            }
            backoff.reset()
            busConnected = true
            busError = nil
            busConnections += 1
            logger.info("connected to the system bus as \(connection.uniqueName)")
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.manage(client) }
                group.addTask { await client.waitUntilBusLost() }
                group.addTask { await self.waitForRestart() }
                await group.next()
                group.cancelAll()
            }
            let stopping = Task.isCancelled
            let restarting = restart.take()
            // The last disconnects and checkpoints must reach the store even though this task
            // is cancelled (GRDB refuses work to a cancelled task): they run in a fresh one.
            await Task {
                await self.stopSupervisors(reason: stopping ? "the daemon is stopping" : restarting ? "the machine settings changed" : "the system bus went away")
                if stopping { await self.shutdownWorkers() }
            }.value
            await client.stop()
            connection.close()
            busConnected = false
            if stopping { return }
            if restarting {
                logger.notice("new machine settings: reconnecting with them")
                continue
            }
            busError = "the system bus went away"
            logger.warning("the system bus went away; reconnecting")
            try? await timers.sleep(for: backoff.next(random: random()))
        }
        await Task { await self.shutdownWorkers() }.value
    }

    private func shutdownWorkers() async {
        var open = 0
        for worker in workers.values where await worker.shutdown() { open += 1 }
        logger.info("machines disconnected; \(open) open session(s) checkpointed")
    }

    /// Applies new machine settings (SIGHUP): every supervisor stops and the fleet starts
    /// again with them. Workers stay, so a session on a machine that is still allowed
    /// carries on once it reconnects, within its grace.
    package func reconfigure(_ new: FleetSettings) {
        settings = new
        restart.raise()?.resume()
    }

    private func waitForRestart() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled { continuation.resume() } else { restart.wait(continuation)?.resume() }
            }
        } onCancel: {
            Task { await self.cancelRestartWait() }
        }
    }

    private func cancelRestartWait() {
        restart.release()?.resume()
    }

    /// Runs a Control Point command on a machine named by name or address.
    package func send(_ command: MachineCommand, to machine: String) async throws -> (CommandOutcome, MachineStatus) {
        guard let entry = await supervisor(for: machine) else { throw FleetError.unknownMachine(machine) }
        let outcome = try await entry.supervisor.send(command)
        let status = await entry.worker?.status ?? MachineStatus(name: machine, address: "", state: .ready)
        return (outcome, status)
    }

    /// Notifications the workers handled in the turn that read them, past the supervisors'
    /// streams (``route(_:key:)``), over all machines.
    package func notificationsHandledDirectly() async -> Int {
        var count = 0
        for worker in workers.values { count += await worker.handledDirectly }
        return count
    }

    /// Every machine the daemon knows, sorted by name.
    package func statuses() async -> [MachineStatus] {
        var result: [MachineStatus] = []
        var seen = Set<String>()
        for worker in workers.values {
            let status = await worker.status
            result.append(status)
            seen.insert(status.address.uppercased())
        }
        for (key, entry) in supervised where workers[key] == nil {
            let target = await entry.supervisor.target
            if let address = target.address, seen.contains(address.uppercased()) { continue }
            result.append(MachineStatus(name: target.name ?? key, address: target.address ?? "", state: .connecting))
        }
        return result.sorted { ($0.name, $0.address) < ($1.name, $1.address) }
    }

    /// Whether `machine` (a name or an address) is one the fleet knows.
    package func knows(_ machine: String) async -> Bool {
        await supervisor(for: machine) != nil
    }

    // MARK: Supervisors

    private func manage(_ client: BlueZClient) async {
        let settings = settings
        budget = AdapterBudget(perAdapter: settings.maxPerAdapter, allows: { settings.filter.allows(adapter: $0) }, timers: timers)
        self.client = client
        defer { self.client = nil }
        if floor != nil {
            // The floor places every machine, the allow list's and restored ones too: the fleet
            // asks it for each machine it hears (``offerHeard(_:)``), and the floor takes others.
        } else if !settings.allow.isEmpty {
            // Sessions restored for machines no longer on the list close by their timers.
            for entry in settings.allow.prefix(settings.maxConnected) {
                startSupervisor(key: entry.uppercased(), target: MachineTarget(entry), client: client)
            }
        } else {
            // Machines with a restored session come back first, wherever they are.
            for (key, worker) in workers where supervised[key] == nil && supervised.count < settings.maxConnected {
                let target = MachineTarget(name: await worker.name, address: await worker.address)
                startSupervisor(key: key, target: target, client: client)
            }
        }
        await followMachines(client)
    }

    /// Starts supervisors for machines BlueZ already knows that the fleet does not.
    func adoptKnown(_ client: BlueZClient) async -> Int {
        var adopted = 0
        for machine in await client.machines(passing: settings.filter) {
            let key = machine.address.uppercased()
            guard supervised[key] == nil, supervised.count < settings.maxConnected else { continue }
            logger.info("found \(machine.name) (\(machine.address)) on \(machine.adapter)")
            startSupervisor(key: key, target: MachineTarget(name: machine.name, address: machine.address), client: client)
            adopted += 1
        }
        return adopted
    }

    /// A machine is two tasks: its supervisor, and the route of its events to its worker. They
    /// are not children of the fleet's task group on purpose. A stop cancels the group, and a
    /// cancelled route would end its stream early (an `AsyncStream` ends on cancellation) and
    /// could not write its last checkpoint (GRDB refuses a cancelled task). So
    /// ``stopSupervisors(reason:)`` cancels only the supervisors, from a task of its own, and
    /// waits for every route to drain its stream to the end.
    func startSupervisor(key: String, target: MachineTarget, client: BlueZClient) {
        let supervisor = MachineSupervisor(
            client: client, target: target, filter: settings.filter, resistanceForms: resistanceForms,
            backoff: settings.reconnectBackoff, timing: settings.supervisorTiming, random: random, allocator: budget, allocationKey: key)
        let run = Task { await supervisor.run() }
        let route = Task { await self.route(supervisor, key: key) }
        supervised[key] = Supervised(supervisor: supervisor, run: run, route: route)
    }

    /// Hands one supervisor's events to its machine's worker, in order: the stream's one
    /// reader, so a disconnect never overtakes a frame. The worker shares the fleet's executor,
    /// so handing it a notification is a call, not a job.
    ///
    /// A notification read on the event loop while this route has finished every event before
    /// it skips the stream: the supervisor hands it to the worker there and then
    /// (``MachineSupervisor/handleNotificationsDirectly(_:)``, ``MachineWorker/notificationNow(_:_:)``),
    /// which saves the Swift job the stream costs each notification; the order is the same.
    private func route(_ supervisor: MachineSupervisor, key: String) async {
        var worker: MachineWorker?
        var placement: (adapter: String, reason: String)?
        let direct = DirectTarget()
        supervisor.handleNotificationsDirectly { [eventLoop] characteristic, value in
            guard eventLoop.inEventLoop, let worker = direct.worker.withLock({ $0 }) else { return false }
            return worker.assumeIsolated { $0.notificationNow(characteristic, value) }
        }
        defer { supervisor.handleNotificationsDirectly(nil) }
        for await event in supervisor.events {
            defer {
                direct.worker.withLock { $0 = worker }
                supervisor.eventHandled()
            }
            switch event {
            case .connecting(let target, let attempt):
                noteLink(key) { $0.attemptStarted(first: attempt == 1) }
                let current = ensureWorker(for: target, key: key)
                worker = current
                if let (adapter, reason) = placement {
                    placement = nil
                    if attempt == 1 { logger.info("\(target) goes through \(AdapterBudget.name(adapter)): \(reason)") }
                    await current.placed(adapter: adapter, reason: reason)
                }
                if attempt == 1 { logger.info("connecting to \(target)") }
                await current.connecting(target)
            case .placed(let adapter, let reason):
                // The attempt's `connecting` follows at once and names the machine.
                placement = (adapter, reason)
            case .waiting(let target, let reason):
                let current = ensureWorker(for: target, key: key)
                worker = current
                logger.notice("\(target) waits: \(reason)")
                await current.waiting(target, reason: reason)
            case .ready(let info):
                noteLink(key) { $0.linkUp() }
                await floor?.linked(MachineTarget(name: info.name, address: info.address))
                // The floor adopts a ride only once the link is up: its worker may have just taken this one's place.
                if floor != nil, let current = workers[info.address.uppercased()] { worker = current }
                logger.info("\(info.name) ready (\(info.address), \(info.model ?? "model unknown"))")
                await worker?.ready(info)
                await reportReady()
            case .notification(let characteristic, let value):
                await worker?.notification(characteristic, value)
            case .disconnected(let reason):
                noteLink(key) { $0.linkDown() }
                let name = await worker?.name ?? key
                logger.warning("\(name) disconnected: \(reason)")
                await worker?.disconnected(reason: reason)
                await floor?.dropped(MachineTarget(name: name, address: key), reason: reason)
                await reportReady()
            case .retrying(let delay, let reason):
                noteLink(key) { $0.retrying() }
                await worker?.failed(reason: reason)
                let name = await worker?.name ?? key
                logger.debug("\(name): \(reason); retrying in \(Self.seconds(delay)) s")
            }
        }
        noteGone(key)
        await worker?.disconnected(reason: releasing.removeValue(forKey: key) ?? "the daemon stopped watching it")
        await reportReady()
    }

    private func ensureWorker(for target: MachineTarget, key: String) -> MachineWorker {
        let address = (target.address ?? key).uppercased()
        if let existing = workers[address] { return existing }
        let worker = MachineWorker(
            name: target.name ?? address, address: target.address ?? "", sink: sink, clock: clock, rules: rules, ticker: ticker,
            eventLoop: eventLoop, metrics: metrics)
        workers[address] = worker
        return worker
    }

    func reportReady() async {
        var ready = 0
        for worker in workers.values where await worker.state == .ready { ready += 1 }
        metrics?.setMachinesConnected(ready)
    }

    private func stopSupervisors(reason: String) async {
        let entries = supervised
        supervised.removeAll()
        for entry in entries.values { entry.run.cancel() }
        for entry in entries.values {
            await entry.run.value
            await entry.route.value
        }
        for worker in workers.values { await worker.disconnected(reason: reason) }
        await reportReady()
    }

    private func supervisor(for machine: String) async -> (supervisor: MachineSupervisor, worker: MachineWorker?)? {
        let wanted = machine.uppercased()
        for (key, entry) in supervised {
            let target = await entry.supervisor.target
            if key == wanted || target.name?.uppercased() == wanted || target.address?.uppercased() == wanted {
                let worker = target.address.flatMap { workers[$0.uppercased()] } ?? workers[key]
                return (entry.supervisor, worker)
            }
        }
        return nil
    }

    static func seconds(_ duration: Duration) -> String {
        let tenths = duration.milliseconds / 100
        return "\(tenths / 10).\(tenths % 10)"
    }
}

/// Why the fleet could not do what was asked.
package enum FleetError: Error, Sendable, CustomStringConvertible {
    case unknownMachine(String)

    package var description: String {
        switch self {
        case .unknownMachine(let machine): "no machine \(machine) is known to the daemon"
        }
    }
}

/// The worker a route's direct notifications go to (``MachineFleet/route(_:key:)``), set by the
/// route as its worker changes and read on the thread that read the notification.
private final class DirectTarget: Sendable {
    let worker = Mutex<MachineWorker?>(nil)
}
