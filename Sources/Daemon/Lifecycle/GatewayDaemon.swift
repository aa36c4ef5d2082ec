import BlueZ
package import DaemonConfig
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

/// `ftms-bridge run`: opens everything that can fail at start (store, sockets), says READY=1,
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
    package var clock: DaemonClock
    /// The event loops for the sockets and timers; `nil` makes a one-thread group for this run.
    /// `ftms-bridge run` passes NIO's singleton group after making it Swift Concurrency's global
    /// executor, so the whole daemon runs on threads that sleep until something is due.
    package var loops: MultiThreadedEventLoopGroup?

    package init(
        config: DaemonConfig, configPath: String?, environment: [String: String], version: String, clock: DaemonClock = .system(),
        loops: MultiThreadedEventLoopGroup? = nil
    ) {
        self.loops = loops
        self.config = config
        self.configPath = configPath
        self.environment = environment
        self.version = version
        self.clock = clock
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

        // Flow 1 steps 1-2: the store, and with it the device id.
        let store: GatewayStore
        do {
            store = try GatewayStore(directory: config.state.directory)
        } catch {
            throw DaemonError("state directory \(config.state.directory): \(error)")
        }
        logger.info("ftms-bridge \(version) starting: device \(store.deviceID), state in \(config.state.directory)")

        let ownsLoops = self.loops == nil
        let loops = self.loops ?? MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let timers = EventLoopClock(eventLoop: loops.next())
        let parts: Parts
        do {
            parts = try await assemble(store: store, loops: loops, timers: timers, logger: logger)
        } catch {
            try? store.close()
            if ownsLoops { try? await loops.shutdownGracefully() }
            throw error
        }
        await parts.fleet.restore(try await store.loadAll())

        try? notifier.send(.ready, .status("ready: store open, sockets bound; finding machines"))
        logger.info("ready: metrics on \(config.metricsSocket.path), control on \(config.controlSocket.path)")

        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: SocketsService(close: parts.closeSockets), serviceName: "sockets"),
        ]
        if let upload = parts.upload {
            services.append(.init(service: upload, successTerminationBehavior: .gracefullyShutdownGroup, failureTerminationBehavior: .gracefullyShutdownGroup, serviceName: "upload"))
        }
        services.append(.init(service: FleetService(fleet: parts.fleet, beforeMachines: parts.checkTokens), serviceName: "machines"))
        services.append(.init(service: ReloadService(reload: parts.reload), serviceName: "reload"))
        services.append(.init(service: WatchdogService(notifier: notifier, watchdog: watchdog, timers: timers, probe: parts.statusLine), serviceName: "watchdog"))
        var groupConfig = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        groupConfig.maximumGracefulShutdownDuration = .seconds(15)
        groupConfig.logging.keys.serviceKey = "service"
        let group = ServiceGroup(configuration: groupConfig)
        do {
            try await group.run()
        } catch {
            logger.error("stopping after an error: \(error)")
        }
        await parts.trainings.stopAll()
        do {
            try store.close()
        } catch {
            logger.error("store not closed cleanly: \(error)")
        }
        if ownsLoops { try? await loops.shutdownGracefully() }
        logger.info("stopped")
    }

    /// Everything built before READY=1.
    struct Parts: Sendable {
        var fleet: MachineFleet
        var upload: UploadService?
        var trainings: TrainingRunner
        var control: DaemonControl
        var checkTokens: @Sendable () async -> Void
        var statusLine: @Sendable () async -> String
        var reload: @Sendable () async -> Void
        var closeSockets: @Sendable () async -> Void
    }

    private func assemble(store: GatewayStore, loops: MultiThreadedEventLoopGroup, timers: EventLoopClock, logger: Logger) async throws -> Parts {
        let metricsGroup = config.metricsSocket.group.isEmpty ? nil : config.metricsSocket.group
        let server: MetricsServer
        do {
            server = try await MetricsServer.listen(
                MetricsServerConfiguration(path: config.metricsSocket.path, group: metricsGroup, daemonVersion: version),
                on: loops.next(), clock: systemUnixClock)
        } catch {
            throw DaemonError("metrics socket \(config.metricsSocket.path): \(error)")
        }
        let mqtt: MQTTPublisher?
        do {
            mqtt = config.mqtt.enabled ? try MQTTStartup.publisher(config.mqtt, deviceID: store.deviceID, clock: clock, timers: timers) : nil
        } catch {
            await server.close()
            throw error
        }
        let publisher = LivePublisher(server: server, mqtt: mqtt)
        let metrics = DaemonMetrics(version: version)
        let prometheus: PrometheusEndpoint?
        if config.prometheus.enabled {
            do {
                let (host, port) = try config.prometheus.listenAddress()
                let endpoint = try await PrometheusEndpoint.listen(host: host, port: port, metrics: metrics, group: loops)
                prometheus = endpoint
                let bound = endpoint.port
                logger.info("Prometheus metrics on http://\(host.contains(":") ? "[\(host)]" : host):\(bound)/metrics")
            } catch {
                await server.close()
                throw DaemonError("prometheus.listen \(config.prometheus.listen): \(error)")
            }
        } else {
            prometheus = nil
        }
        let mqttMetrics = try mqtt.map { try MQTTStartup.begin($0, metrics: metrics, allow: config.machines.allow, logger: logger) }

        let sync: SyncService?
        if config.backend.url.isEmpty {
            sync = nil
            logger.notice("no backend configured ([backend] url): sessions are stored and wait for one")
        } else {
            do {
                let client = try BackendClient(baseURL: config.backend.url, timeout: config.backend.timeout, clock: timers)
                let zone = config.sessions.timeZone.isEmpty ? TimeZone.current : (TimeZone(identifier: config.sessions.timeZone) ?? .current)
                sync = SyncService(store: store, client: client, timeZone: zone)
            } catch {
                await server.close()
                throw DaemonError("backend.url: \(error)")
            }
        }

        let scheduler = sync.map { sync in
            UploadScheduler(policy: RetryPolicy(), idleInterval: config.backend.uploadInterval, sleep: { try await timers.sleep(for: $0) }) {
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

        // Periodic checkpoints of all machines due within half a checkpoint interval share one
        // transaction (docs/performance.md).
        let checkpoints = CheckpointBatcher(store: store, window: config.sessions.rules.checkpointInterval / 2, logger: logger, timers: timers)
        let sink = SessionSink(
            store: store, publisher: publisher, logger: logger, sessionStored: { await scheduler?.sessionFinished() }, checkpoints: checkpoints
        ) { event in
            switch event {
            case .started: metrics.sessionOpened()
            case .finished(_, let summary): metrics.sessionFinished(reason: summary.detail.endReason.rawValue)
            case .dropped(_, let reason, _): metrics.sessionDropped(reason: reason.rawValue)
            case .paused, .resumed: break
            }
        }
        let fleet = MachineFleet(
            settings: FleetSettings(config: config, environment: environment), sink: sink, clock: clock,
            rules: config.sessions.rules, logger: logger, metrics: metrics, timers: timers,
            datagramReader: EventLoopDatagramReader(loop: loops.next()))
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
            fleet: fleet, store: store, scheduler: scheduler, trainings: trainings, publisher: publisher,
            version: version, backend: config.backend.url.isEmpty ? nil : config.backend.url, metrics: metrics)
        let controlSocket = try await ControlEndpoint.listen(config.controlSocket, control: control, on: loops)

        let trainingsTTL = config.backend.trainingsTTL
        let upload = scheduler.map { scheduler in
            UploadService(scheduler: scheduler) {
                guard let sync else { return }
                do {
                    let result = try await sync.trainings(ttl: trainingsTTL)
                    if let error = result.error { logger.warning("trainings not refreshed (the cached list is kept): \(error)") }
                    else if result.refreshed { logger.info("trainings refreshed") }
                } catch {
                    logger.info("trainings not refreshed: \(error)")
                }
            }
        }
        let timeout = min(config.backend.timeout, .seconds(5))
        let checkTokens: @Sendable () async -> Void = {
            guard let sync else { return }
            let check = await Self.withTimeout(timeout, timers: timers) { await sync.authority.checkAtStartup() }
            if case .valid(true)? = check { metrics.tokenRefreshed(result: "success") }
            if case .loginRequired? = check { metrics.tokenRefreshed(result: "login_required") }
            switch check {
            case .valid(let refreshed)?: logger.info(refreshed ? "tokens refreshed" : "tokens valid")
            case .loginRequired(let reason)?: logger.warning("login required (\(reason)): run `ftms-bridge login`; sessions keep queueing")
            case .unreachable(let reason)?: logger.warning("backend unreachable at start-up (\(reason)); uploads will retry")
            case nil: logger.warning("token check took longer than \(timeout); machines first, uploads will retry")
            }
        }
        let statusLine: @Sendable () async -> String = {
            guard let status = try? await control.snapshot() else { return "store unavailable" }
            metrics.setQueueDepth(pending: status.queue.pending, uploaded: status.queue.uploaded, dead: status.queue.dead)
            metrics.setOldestPendingAge(status.queue.oldestPendingAgeSeconds.map { .seconds($0) })
            let socket = await server.metrics
            metrics.observeMetricsSocket(
                readers: socket.readersConnected, messagesDropped: socket.messagesDropped,
                readersDisconnected: UInt64(socket.readersDisconnectedSlow))
            let ready = status.machines.filter { $0.state == .ready }.count
            let riding = status.machines.filter { $0.sessionID != nil }.count
            var line = "\(ready) of \(status.machines.count) machines ready, \(riding) sessions open, \(status.queue.pending) pending uploads"
            if !status.bus.connected { line += "; system bus: \(status.bus.error ?? "connecting")" }
            if !status.account.loggedIn, sync != nil { line += "; login required" }
            if let mqtt {
                let broker = mqtt.client.status
                mqttMetrics?.observe(queued: broker.queued, delivered: broker.delivered, dropped: broker.dropped)
                if broker.state != .connected { line += "; MQTT: \(broker.lastError ?? "connecting")" }
            }
            return line
        }
        let reload = ConfigReload(path: configPath, running: config, environment: environment, level: level, logger: logger, fleet: fleet, mqtt: mqtt)
        let closeSockets: @Sendable () async -> Void = {
            await mqtt?.stop()
            await prometheus?.close()
            await controlSocket.close()
            await server.close()
        }
        return Parts(
            fleet: fleet, upload: upload, trainings: trainings, control: control, checkTokens: checkTokens,
            statusLine: statusLine, reload: { await reload.run() }, closeSockets: closeSockets)
    }

    /// `operation`'s result, or `nil` if it takes longer than `timeout` (it is cancelled).
    static func withTimeout<T: Sendable>(_ timeout: Duration, timers: any Clock<Duration>, _ operation: @escaping @Sendable () async -> T) async -> T? {
        await withTaskGroup(of: T?.self) { group in
            group.addTask { await operation() }
            group.addTask {
                try? await timers.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
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
