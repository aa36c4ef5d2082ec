import BlueZ
import Control
import DBus
package import DaemonConfig
import Floor
import FoundationEssentials
package import Logging
import MQTT
import NIOCore
package import NIOPosix
import Publish
import ServiceLifecycle
import Store
import Systemd
import Telemetry
import Training
import Upload
import Workout

/// `ftms-bridged`: opens everything that can fail at start (store, sockets), says READY=1,
/// then runs the services until SIGTERM (contract §10, SolidFocus Flow 1).
///
/// Start-up order is Flow 1's on a gateway: the store opens and the device id is ready;
/// the sockets are bound and checkpointed sessions restored; systemd hears READY=1; the
/// stored tokens are checked (and refreshed when due); the pending upload and the trainings
/// refresh start in the background; then machines are found and connected.
///
/// Shutdown runs the other way: STOPPING=1, the fleet disconnects every machine and
/// checkpoints open sessions, the uploader stops between calls, the sockets close, and the
/// store is closed (its WAL checkpointed) before the process exits.
package struct GatewayDaemon: Sendable {
    package var config: DaemonConfig
    package var configPath: String?
    package var environment: [String: String]
    package var version: String
    package var level: JournalLogHandler.Level
    /// The event loops for the sockets and timers; `nil` makes a one-thread group for this run.
    /// The machine fleet and its workers run on the metrics socket's loop whatever the global
    /// executor is. `ftms-bridged` passes NIO's singleton group after making it Swift
    /// Concurrency's global executor too, so the rest of the daemon runs on threads that sleep
    /// until something is due.
    package var loops: MultiThreadedEventLoopGroup?
    /// The machine id a state directory with no device id anywhere derives one from
    /// (`ftms-bridged`: `/etc/machine-id`); nil, a random id (tests).
    package var machineIDPath: String?
    /// systemd's machine id, which `ftms-bridged` derives the device id from.
    package static let systemMachineIDPath = MachineAppID.systemPath

    package init(
        config: DaemonConfig, configPath: String?, environment: [String: String], version: String,
        loops: MultiThreadedEventLoopGroup? = nil, machineIDPath: String? = nil
    ) {
        self.loops = loops
        self.machineIDPath = machineIDPath
        self.config = config
        self.configPath = configPath
        self.environment = environment
        self.version = version
        level = JournalLogHandler.Level(Logger.Level(rawValue: config.log.level) ?? .info)
    }

    package func makeLogger(_ label: String = "ftms-bridge") -> Logger {
        let level = level
        let environment = environment
        return Logger(label: label) { JournalLogHandler(label: $0, level: level, environment: environment) }
    }

    package func run() async throws {
        let logger = makeLogger()
        let notifier = SystemdNotifier(environment: environment)
        let watchdog: WatchdogSettings?
        do {
            watchdog = try WatchdogSettings.from(environment: environment, processID: getpid())
        } catch {
            logger.warning("ignoring systemd's watchdog settings: \(error)")
            watchdog = nil
        }
        try? notifier.send(.status("opening the store"))

        // Flow 1 steps 1-2: the store, and with it the device id. A damaged database does not
        // stop the gym: it is moved aside and a fresh one made (contract §6).
        let store: GatewayStore
        let movedAside: MovedAside?
        do {
            (store, movedAside) = try GatewayStore.openMovingDamagedAside(
                directory: config.state.directory, reserve: StoreReserve(directory: config.state.directory),
                machineIDPath: machineIDPath)
        } catch let error as StoreError {
            // A card gone read-only does not stop the gym either: the store runs in memory.
            guard let why = error.unwritableCause(directory: config.state.directory) else {
                throw DaemonError("state directory \(config.state.directory): \(error)")
            }
            do {
                store = try GatewayStore.keptInMemory(
                    directory: config.state.directory, because: why, reserve: StoreReserve(directory: config.state.directory),
                    machineIDPath: machineIDPath)
            } catch {
                throw DaemonError("state directory \(config.state.directory): \(why); and no store in memory either: \(error)")
            }
            movedAside = nil
            logger.critical(
                "state directory \(config.state.directory) cannot be written (\(store.health.inMemory.map { "\($0)" } ?? "\(why)")): the store runs IN MEMORY; live data flows, sessions are kept and uploaded from memory, and written to the file as soon as it takes writes, without a restart; a stop before then loses what is not uploaded")
            try? notifier.send(.status("STORE IN MEMORY ONLY: \(why)"))
        } catch {
            throw DaemonError("state directory \(config.state.directory): \(error)")
        }
        if let movedAside {
            logger.critical(
                "state database was DAMAGED (\(movedAside.reason)): moved aside to \(movedAside.path), never deleted; started on a fresh one (\(movedAside.keptDeviceID ? "device id kept" : "NEW device id: the backend sees a new gateway"), \(movedAside.keptLogin ? "login kept" : "login required")); run `ftms-bridge salvage` to queue its readable sessions")
            try? notifier.send(.status("damaged database moved aside to \(movedAside.path); started on a fresh store"))
        }
        logger.info("ftms-bridge \(version) starting: device \(store.deviceID), state in \(config.state.directory)")
        for warning in store.journalReplay.warnings { logger.warning("\(warning)") }
        if store.journalReplay.requeued > 0 {
            logger.warning("\(store.journalReplay.requeued) session(s) the database had lost were put back in the queue from the session journal")
        }
        let wallClock = await openWallClock(store: store, logger: logger)

        let ownsLoops = self.loops == nil
        let loops = self.loops ?? MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let timers = EventLoopClock(eventLoop: loops.next())
        let fleet: MachineFleet
        let storeWatch: StoreWatch
        let keeper: StoreKeeper
        let services: [ServiceGroupConfiguration.ServiceConfiguration]
        let floor: FloorCoordinator?
        do {
            (fleet, storeWatch, keeper, services, floor) = try await assemble(
                store: store, movedAside: movedAside, wallClock: wallClock, loops: loops, timers: timers, notifier: notifier,
                watchdog: watchdog, logger: logger)
        } catch {
            try? store.close()
            if ownsLoops { try? await loops.shutdownGracefully() }
            throw error
        }
        let checkpoints = try await store.loadAll()
        if let floor {
            // The broker may know that a neighbour carried these sessions on: ask it first.
            await floor.hold(checkpoints, restore: { await fleet.restore($0) }, handOver: { snapshot, gateway in
                await fleet.handedOver(snapshot, to: gateway)
            })
        } else {
            await fleet.restore(checkpoints)
        }

        try? notifier.send(.ready, .status("ready: store open, sockets bound; finding machines"))
        logger.info("ready: metrics on \(config.metricsSocket.path), control on \(config.controlSocket.path)")

        var groupConfig = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        groupConfig.maximumGracefulShutdownDuration = .seconds(15)
        groupConfig.logging.keys.serviceKey = "service"
        let group = ServiceGroup(configuration: groupConfig)
        do {
            try await group.run()
        } catch {
            logger.error("stopping after an error: \(error)")
        }
        let held = await storeWatch.lastTry()
        let onlyInMemory = await keeper.lastTry()
        if onlyInMemory > 0 {
            logger.critical(
                "stopping with the store IN MEMORY: \(onlyInMemory) pending session(s) not uploaded and never written to the file are lost with this process (\(store.health.inMemory.map { "\($0)" } ?? "the file cannot be written"))")
        }
        if held > 0 {
            logger.critical(
                "stopping with \(held) finished session(s) the store could not take (\(store.health.failure.map { "\($0)" } ?? "refused")): their last checkpoints are kept, and the next start closes them from there")
        }
        do {
            try store.close()
        } catch {
            logger.error("store not closed cleanly: \(error)")
        }
        if ownsLoops { try? await loops.shutdownGracefully() }
        logger.info("stopped")
    }

    /// Opens everything that can fail at start, before READY=1, and hands each resource to the
    /// service that owns it from then on. The services are in start order; the group stops
    /// them in reverse, so the sockets close last and the watchdog hears of a shutdown first.
    private func assemble(
        store: GatewayStore, movedAside: MovedAside?, wallClock: SystemWallClock, loops: MultiThreadedEventLoopGroup,
        timers: EventLoopClock, notifier: SystemdNotifier, watchdog: WatchdogSettings?, logger: Logger
    ) async throws -> (MachineFleet, StoreWatch, StoreKeeper, [ServiceGroupConfiguration.ServiceConfiguration], FloorCoordinator?) {
        let clock = DaemonClock.judged(by: wallClock)
        let clockWakes = ClockWakes()
        // What can fail without holding anything open comes first: the broker's and the
        // backend's settings.
        let mqtt = config.mqtt.enabled ? try MQTTStartup.publisher(config.mqtt, deviceID: store.deviceID, clock: clock, timers: timers) : nil
        let sync: SyncService?
        if config.backend.url.isEmpty {
            sync = nil
            logger.notice("no backend configured ([backend] url): sessions are stored and wait for one")
        } else {
            do {
                let client = try BackendClient(baseURL: config.backend.url, timeout: config.backend.timeout, clock: timers) { sample in
                    if wallClock.learn(sample) { clockWakes.wake() }
                }
                let zone = config.sessions.timeZone.isEmpty ? TimeZone.current : (TimeZone(identifier: config.sessions.timeZone) ?? .current)
                sync = SyncService(store: store, client: client, timeZone: zone)
            } catch {
                throw DaemonError("backend.url: \(error)")
            }
        }
        let metrics = DaemonMetrics(version: version)
        let floor = try floorCoordinator(deviceID: store.deviceID, clock: clock, timers: timers, metrics: metrics, logger: logger)

        // Then the listening ends, each closed again if a later one fails.
        let metricsGroup = config.metricsSocket.group.isEmpty ? nil : config.metricsSocket.group
        let server: MetricsServer
        do {
            server = try await MetricsServer.listen(
                MetricsServerConfiguration(
                    path: config.metricsSocket.path, group: metricsGroup, daemonVersion: version,
                    limits: ReaderLimits(readers: config.metricsSocket.maxClients)),
                on: loops.next(), clock: .system)
        } catch {
            throw DaemonError("metrics socket \(config.metricsSocket.path): \(error)")
        }
        let prometheus: PrometheusEndpoint?
        let mqttMetrics: MQTTMetrics?
        do {
            prometheus = try await listenPrometheus(metrics: metrics, loops: loops, logger: logger)
            do {
                mqttMetrics = try mqtt.map { try MQTTStartup.begin($0, metrics: metrics, allow: config.machines.allow, logger: logger) }
            } catch {
                await prometheus?.close()
                throw error
            }
        } catch {
            await server.close()
            throw error
        }
        let publisher = LivePublisher(server: server, mqtt: mqtt)

        let scheduler = sync.map { sync in
            UploadScheduler(policy: RetryPolicy(), idleInterval: config.backend.uploadInterval, timers: timers) {
                let outcome: UploadOutcome
                let result: String
                do {
                    let report = try await sync.uploader.run()
                    outcome = report.outcome
                    result = report.summary
                    for batch in report.batches {
                        metrics.uploadedSessions(accepted: batch.accepted, duplicates: batch.duplicates, retried: batch.retried, dead: batch.dead)
                    }
                    if report.sessions > 0 || !report.succeeded { logger.info("upload: \(report.summary)") }
                } catch {
                    outcome = .retry(retryAfter: nil)
                    result = "\(error)"
                    logger.warning("upload failed: \(error)")
                }
                metrics.uploadRun(result: outcome.name)
                if let counts = try? await store.counts() {
                    metrics.setQueueDepth(pending: counts.pending, uploaded: counts.uploaded, dead: counts.dead)
                    await publisher.upload(MetricsPayloads.upload(pending: counts.pending, uploaded: counts.uploaded, dead: counts.dead, result: result))
                }
                return outcome
            }
        }

        // The one path from a finished session to the queue; it holds what the store refuses
        // and retries every window. Periodic checkpoints of all machines due within half a
        // checkpoint interval share one transaction (docs/performance.md).
        let keeper = FinishedSessionKeeper(
            store: store, window: config.sessions.rules.checkpointInterval / 2, logger: logger, timers: timers,
            stored: { await scheduler?.sessionFinished() })
        let storeWatch = StoreWatch(
            store: store, keeper: keeper, lowSpaceBytes: Int64(config.state.lowSpaceWarningMiB) << 20, movedAside: movedAside,
            logger: logger, metrics: metrics, publish: mqtt.map { mqtt -> @Sendable (String) -> Void in { json in mqtt.storeChanged(json) } })
        storeWatch.start()
        let storeKeeper = StoreKeeper(
            store: store, storeWatch: storeWatch, timers: timers, logger: logger,
            changed: { await scheduler?.sessionFinished() })
        let sink = SessionSink(
            keeper: keeper, publisher: publisher, logger: logger,
            sessionStored: {
                clockWakes.wake()
                await scheduler?.sessionFinished()
            },
            observe: { event in
            switch event {
            case .started: metrics.sessionOpened()
            case .finished(let progress, let summary):
                metrics.sessionFinished(reason: summary.detail.endReason.rawValue)
                if progress.timing?.datesAreTrue == true { wallClock.raise(floor: summary.endedAt) }
            case .dropped(_, let reason, _): metrics.sessionDropped(reason: reason.rawValue)
            case .paused, .resumed: break
            }
            }, mirror: floor?.mirrorHook)
        let fleet = MachineFleet(
            settings: FleetSettings(config: config, environment: environment), sink: sink, clock: clock,
            rules: config.sessions.rules, logger: logger, eventLoop: server.eventLoop, metrics: metrics, timers: timers,
            datagramReader: EventLoopDatagramReader(loop: server.eventLoop), floor: floor)
        await floor?.attach(fleet)
        let trainings = TrainingRunner(timers: timers, logger: logger, send: { command, machine in
            try await fleet.send(command, to: machine).0
        }, report: { machine, plan, command, result in
            let payload: JSONPayload
            switch result {
            case .success(let outcome):
                payload = MetricsPayloads.control(
                    operation: command.operation, request: outcome.request, result: outcome.resultName,
                    succeeded: outcome.succeeded, origin: "training", detail: plan.id)
            case .failure(let error):
                payload = MetricsPayloads.control(
                    operation: command.operation, request: [], result: "not_sent", succeeded: false, origin: "training",
                    detail: "\(plan.id): \(error)")
            }
            await publisher.control(payload, machine: machine, sessionID: nil)
        })
        let control = DaemonControl(
            fleet: fleet, store: store, scheduler: scheduler, trainings: trainings, publisher: publisher, mqtt: mqtt,
            version: version, backend: config.backend.url.isEmpty ? nil : config.backend.url, metrics: metrics, storeWatch: storeWatch,
            wallClock: wallClock, clockSyncWait: .seconds(config.backend.clockSyncWait), clockWakes: clockWakes, floor: floor)
        let controlSocket: ControlServer
        do {
            controlSocket = try await ControlEndpoint.listen(config.controlSocket, control: control, on: loops)
        } catch {
            await mqtt?.stop()
            await prometheus?.close()
            await server.close()
            throw error
        }

        let reload = ConfigReload(path: configPath, running: config, environment: environment, level: level, logger: logger, fleet: fleet, mqtt: mqtt)
        let probe = StatusProbe(
            control: control, metricsServer: server, metrics: metrics, mqtt: mqtt, mqttMetrics: mqttMetrics, backendConfigured: sync != nil,
            storeWatch: storeWatch)
        let tokens = sync.map {
            StartupTokenCheck(sync: $0, timeout: min(config.backend.timeout, .seconds(5)), timers: timers, metrics: metrics, logger: logger)
        }

        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: SocketsService(metrics: server, control: controlSocket, prometheus: prometheus, mqtt: mqtt), serviceName: "sockets")
        ]
        if let scheduler, let sync {
            services.append(
                .init(
                    service: UploadService(scheduler: scheduler, sync: sync, trainingsTTL: config.backend.trainingsTTL, logger: logger),
                    successTerminationBehavior: .gracefullyShutdownGroup, failureTerminationBehavior: .gracefullyShutdownGroup,
                    serviceName: "upload"))
        }
        services.append(.init(service: FleetService(fleet: fleet, trainings: trainings, tokens: tokens), serviceName: "machines"))
        if let floor {
            services.append(.init(service: FloorService(coordinator: floor, handoverOnStop: config.fleet.handoverOnStop), serviceName: "floor"))
        }
        // The backend is asked for its time only if its `Date` is believed (contract §5).
        var askBackend: (@Sendable () async throws -> Void)?
        if let sync, BackendDateSample.trusts(baseURL: config.backend.url) {
            askBackend = { try await sync.client.askTime() }
        }
        let timedated = TimedatedSync(address: DBusConnection.systemBusAddress(environment: environment))
        services.append(.init(
            service: ClockService(
                clock: wallClock, store: store, wait: .seconds(config.backend.clockSyncWait), buildFloor: Self.buildFloor, timers: timers,
                logger: logger, wakes: clockWakes, timedated: timedated, askBackend: askBackend,
                dated: { await scheduler?.sessionFinished() }),
            serviceName: "clock"))
        services.append(.init(service: StoreService(keeper: storeKeeper), serviceName: "store"))
        services.append(.init(service: ReloadService(reload: reload), serviceName: "reload"))
        services.append(.init(service: WatchdogService(notifier: notifier, watchdog: watchdog, timers: timers, probe: probe), serviceName: "watchdog"))
        return (fleet, storeWatch, storeKeeper, services, floor)
    }

    /// The floor's coordinator when `[fleet]` is on; the floor needs `[mqtt]`, and without it
    /// the gateway says so and runs as an island.
    private func floorCoordinator(
        deviceID: String, clock: DaemonClock, timers: any Clock<Duration>, metrics: DaemonMetrics, logger: Logger
    ) throws -> FloorCoordinator? {
        guard config.fleet.enabled else { return nil }
        guard config.mqtt.enabled else {
            logger.warning("[fleet] is on but [mqtt] is off: the floor needs the broker; this gateway runs as an island")
            return nil
        }
        let gateway = config.fleet.gateway.isEmpty ? MQTTStartup.gatewayName(config.mqtt) : config.fleet.gateway
        let rules = FloorRules(
            heartbeat: config.fleet.heartbeat, lease: config.fleet.lease, rssiMargin: config.fleet.rssiMargin,
            heardWindow: config.fleet.heardWindow, holdUnconfirmed: config.fleet.holdUnconfirmed,
            disconnectGrace: config.sessions.rules.disconnectGrace)
        let client = try MQTTStartup.client(
            config.mqtt, deviceID: deviceID, will: FloorCoordinator.will(gateway: gateway, prefix: config.mqtt.topicPrefix),
            suffix: "-floor", keepalive: FloorCoordinator.keepalive, backoff: FloorCoordinator.backoff(rules))
        return FloorCoordinator(
            gateway: gateway, prefix: config.mqtt.topicPrefix, home: config.machines.allow, rules: rules, client: client,
            now: { clock.now().monotonic }, timers: timers, logger: logger, metrics: FloorMetrics(registry: metrics.registry))
    }

    /// No true date is earlier than this build's release (``ProductVersion/released``).
    static let buildFloor = UTCTime(iso8601: ProductVersion.released + "T00:00:00Z") ?? UTCTime(millisecondsSince1970: 0)

    /// The system's wall clock judged from what this boot already knew (contract §5): its floor
    /// is this build's date and the latest session stored with true dates.
    private func openWallClock(store: GatewayStore, logger: Logger) async -> SystemWallClock {
        let boot = SystemWallClock.currentBoot()
        if boot == nil {
            logger.warning("this boot's id is unreadable (/proc/sys/kernel/random/boot_id): a restart's downtime is measured on the wall clock")
        }
        var floor = Self.buildFloor
        var memory: StoredWallClock?
        do {
            if let latest = try await store.latestTrueEnd() { floor = max(floor, latest) }
            memory = try await store.wallClock()
        } catch {
            logger.warning("the wall clock's state in the store is unreadable, judged afresh: \(error)")
        }
        let clock = SystemWallClock(boot: boot, floor: floor, memory: memory)
        let judge = clock.judge()
        logger.info("wall clock \(judge.last?.wall.iso8601 ?? "?"): \(judge.explanation)\(judge.isTrusted ? "" : "; sessions are dated when it is (contract §5)")")
        return clock
    }

    /// The Prometheus endpoint when `[prometheus]` is on.
    private func listenPrometheus(metrics: DaemonMetrics, loops: MultiThreadedEventLoopGroup, logger: Logger) async throws -> PrometheusEndpoint? {
        guard config.prometheus.enabled else { return nil }
        do {
            let (host, port) = try config.prometheus.listenAddress()
            let endpoint = try await PrometheusEndpoint.listen(host: host, port: port, metrics: metrics, group: loops)
            let bound = endpoint.port
            logger.info("Prometheus metrics on http://\(host.contains(":") ? "[\(host)]" : host):\(bound)/metrics")
            return endpoint
        } catch {
            throw DaemonError("prometheus.listen \(config.prometheus.listen): \(error)")
        }
    }
}

extension UploadOutcome {
    /// The label Prometheus and the logs use.
    var name: String {
        switch self {
        case .settled: "settled"
        case .retry: "retry"
        case .blocked: "blocked"
        }
    }
}
