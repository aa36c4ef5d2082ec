import ProcessOutput
package import Clocks
package import BlueZ
package import Publish
import FTMS
import FoundationEssentials
package import Store
package import Telemetry
import Training
package import Upload
import Workout

/// What the control socket's commands do (contract §7): everything an operator or the
/// CLI may ask of a running daemon. Each command answers with JSON or a one-line failure;
/// nothing here throws past the socket, whatever the machine or the backend does.
package actor DaemonControl {
    let fleet: MachineFleet
    let store: GatewayStore
    let scheduler: UploadScheduler?
    let trainings: TrainingRunner
    let publisher: LivePublisher
    let mqtt: MQTTPublisher?
    let version: String
    let backend: String?
    let started: ContinuousClock.Instant
    let clock: WallClock
    let metrics: DaemonMetrics?
    /// The store's writability, free space and held sessions, for `status`.
    let storeWatch: StoreWatch?
    /// The system's wall clock as the daemon judges it, and how long sessions wait for it.
    let wallClock: SystemWallClock?
    let clockSyncWait: Duration
    /// The clock service, woken by an operator's `upload` so waiting sessions are dated first.
    let clockWakes: ClockWakes?
    /// The floor's coordinator when `[fleet]` is on.
    let floor: FloorCoordinator?
    /// The store's last good reading: what `status` reports, marked unreadable, while a damaged
    /// database waits to be moved aside (an operator asks exactly then).
    private var lastOverview: StoreOverview?
    private var lastUndated = UndatedSessions()

    package init(
        fleet: MachineFleet, store: GatewayStore, scheduler: UploadScheduler?, trainings: TrainingRunner,
        publisher: LivePublisher, mqtt: MQTTPublisher? = nil, version: String, backend: String?, clock: WallClock = .system, metrics: DaemonMetrics? = nil,
        storeWatch: StoreWatch? = nil, wallClock: SystemWallClock? = nil, clockSyncWait: Duration = .zero, clockWakes: ClockWakes? = nil,
        floor: FloorCoordinator? = nil
    ) {
        self.floor = floor
        self.clockWakes = clockWakes
        self.storeWatch = storeWatch
        self.wallClock = wallClock
        self.clockSyncWait = clockSyncWait
        self.metrics = metrics
        self.fleet = fleet
        self.store = store
        self.scheduler = scheduler
        self.trainings = trainings
        self.publisher = publisher
        self.mqtt = mqtt
        self.version = version
        self.backend = backend
        self.clock = clock
        started = .now
    }

    package func status() async -> ControlOutcome {
        do {
            return .ok(json: try Self.json(try await snapshot()))
        } catch {
            return .failed(code: "failed", message: "status: \(error)")
        }
    }

    /// The status as a value, for the watchdog's status line too.
    package func snapshot() async throws -> DaemonStatus {
        var unreadable: String?
        do {
            lastOverview = try await store.overview()
        } catch {
            unreadable = "\(error)"
        }
        let counts = lastOverview?.counts ?? QueueCounts(), oldest = lastOverview?.oldestPendingQueuedAt
        let account = lastOverview?.account ?? AccountState(loggedIn: false, loginRequiredReason: nil, userProfile: nil, accessExpiresAt: nil)
        let last = lastOverview?.lastUpload
        let now = clock.now()
        var machines = await fleet.statuses()
        for index in machines.indices {
            machines[index].training = await trainings.active(on: machines[index].name)
        }
        let readers = await publisher.server?.metrics.readersConnected ?? 0
        let broker = mqtt.map { mqtt in
            let status = mqtt.client.status
            return DaemonStatus.Broker(
                url: mqtt.client.configuration.broker.description, state: status.state.rawValue, lastError: status.lastError,
                connections: status.connections, queued: status.queued, delivered: status.delivered, dropped: status.dropped)
        }
        return DaemonStatus(
            version: version, deviceID: store.deviceID,
            uptimeSeconds: Int((ContinuousClock.now - started).components.seconds), backend: backend,
            bus: .init(connected: await fleet.busConnected, connections: await fleet.busConnections, error: await fleet.busError),
            machines: machines,
            queue: .init(
                pending: counts.pending, uploaded: counts.uploaded, dead: counts.dead,
                oldestPendingAgeSeconds: oldest.map { Int(max(0, now.millisecondsSince1970 - $0.millisecondsSince1970) / 1000) },
                unreadable: unreadable),
            account: .init(loggedIn: account.loggedIn, loginRequiredReason: account.loginRequiredReason),
            lastUpload: last.map { .init(at: $0.finishedAt.iso8601, result: $0.result, succeeded: $0.succeeded) },
            metricsReaders: readers, mqtt: broker, store: await storeWatch?.status(), clock: await wallClockStatus(),
            floor: await floor?.report())
    }

    private func wallClockStatus() async -> DaemonStatus.WallClockState? {
        guard let wallClock else { return nil }
        let judge = wallClock.judge()
        if let undated = try? await store.undatedSessions() { lastUndated = undated }
        let undated = lastUndated
        let boottime = judge.last?.boottime ?? .zero
        return DaemonStatus.WallClockState(
            trusted: judge.isTrusted, datedBy: judge.source?.rawValue, state: judge.explanation, now: judge.last?.wall.iso8601 ?? "?",
            floor: judge.floor.iso8601,
            sessionsWaiting: undated.waiting, sessionsEstimated: undated.estimated,
            waitSeconds: Int(clockSyncWait.components.seconds), waitLeftSeconds: Int(max(.zero, clockSyncWait - boottime).components.seconds))
    }

    /// Hands the named machines (all held when none) to the floor (`ftms-bridge handover`).
    package func handover(_ machines: [String]) async -> ControlOutcome {
        guard let floor else { return .failed(code: "no_floor", message: "handover needs the floor: [fleet] enabled = true (with [mqtt] on)") }
        for machine in machines where !(await fleet.knows(machine)) {
            return .failed(code: "unknown_machine", message: "no machine \(machine) is held by this gateway")
        }
        let handed = await floor.handover(machines)
        do {
            return .ok(json: try Self.json(["handed_over": handed]))
        } catch {
            return .failed(code: "failed", message: "handover: \(error)")
        }
    }

    package func machines() async -> ControlOutcome {
        let machines = await fleet.statuses()
        do {
            return .ok(json: try Self.json(["machines": machines]))
        } catch {
            return .failed(code: "failed", message: "machines: \(error)")
        }
    }

    /// Runs one Control Point command for an operator and publishes its result.
    package func command(_ command: MachineCommand, machine: String) async -> ControlOutcome {
        do {
            let (outcome, status) = try await fleet.send(command, to: machine)
            metrics?.controlCommand(command.operation, result: outcome.succeeded ? "ok" : "refused")
            await publisher.control(
                MetricsPayloads.control(
                    operation: command.operation, request: outcome.request, result: outcome.resultName,
                    succeeded: outcome.succeeded, origin: "operator"),
                machine: status.name, sessionID: status.sessionID)
            let answer = CommandAnswer(
                machine: status.name, operation: command.operation, request: Hex.string(outcome.request),
                result: outcome.resultName, succeeded: outcome.succeeded)
            if !outcome.succeeded {
                return .failed(code: "refused", message: "\(status.name) answered \(outcome.resultName) to \(command.operation)")
            }
            return .ok(json: try Self.json(answer))
        } catch let error as FleetError {
            metrics?.controlCommand(command.operation, result: "error")
            return .failed(code: "unknown_machine", message: error.description)
        } catch let error as LinkError {
            metrics?.controlCommand(command.operation, result: "error")
            if case .notReady = error { return .failed(code: "not_ready", message: "\(error)") }
            return .failed(code: "failed", message: "\(error)")
        } catch {
            return .failed(code: "failed", message: "\(error)")
        }
    }

    /// Starts an upload now, ending any wait (a backoff, or the backend's `Retry-After`); the
    /// answer is the queue as it stands. When every pending session waits for a true date
    /// (contract §5) nothing can be sent: the answer says so, in one line, instead of
    /// "triggered" (the clock service is woken all the same, to date them if it now can).
    package func uploadNow() async -> ControlOutcome {
        guard let scheduler else { return .failed(code: "no_backend", message: "no backend is configured ([backend] url)") }
        clockWakes?.wake()
        do {
            let overview = try await store.overview()
            let counts = overview.counts
            if counts.pending > 0, !overview.account.loggedIn {
                return .failed(
                    code: "login_required",
                    message: "nothing sent: \(counts.pending) session(s) wait for a login (\(overview.account.loginRequiredReason ?? "not logged in"); `ftms-bridge login`)")
            }
            let waiting = try await store.undatedSessions().waiting
            if counts.pending > 0, waiting >= counts.pending, let judge = wallClock?.judge(), !judge.datesAreTrue {
                return .failed(
                    code: "waiting_for_clock",
                    message: "nothing sent: \(waiting) finished session(s) wait for a true date (wall clock \(judge.explanation); `ftms-bridge status` says how long)")
            }
            await scheduler.uploadNow()
            return .ok(json: try Self.json(["triggered": 1, "pending": counts.pending, "waiting_for_clock": waiting]))
        } catch {
            return .failed(code: "failed", message: "upload: \(error)")
        }
    }

    /// Starts a cached training (SolidFocus Flow 1 step 4.2's list) on a machine.
    package func startTraining(_ id: String, machine: String) async -> ControlOutcome {
        guard let machine = await canonicalName(machine) else {
            return .failed(code: "unknown_machine", message: "no machine \(machine) is known to the daemon")
        }
        let cache: TrainingsCache?
        do {
            cache = try await store.cachedTrainings()
        } catch {
            return .failed(code: "failed", message: "trainings cache: \(error)")
        }
        guard let cache else { return .failed(code: "no_trainings", message: "no trainings are cached yet (log in, and let the daemon refresh them)") }
        let plan: TrainingPlan
        do {
            plan = try TrainingPlan.plan(id: id, fromTrainingsBody: cache.body)
        } catch {
            return .failed(code: "unknown_training", message: "\(error)")
        }
        await trainings.start(plan, on: machine)
        return (try? .ok(json: Self.json(TrainingAnswer(machine: machine, training: plan.id, durationSeconds: Int(plan.duration.components.seconds), stages: plan.stages.count))))
            ?? .failed(code: "failed", message: "encoding")
    }

    package func stopTraining(machine: String) async -> ControlOutcome {
        let machine = await canonicalName(machine) ?? machine
        guard let id = await trainings.stop(on: machine) else {
            return .failed(code: "no_training", message: "no training is running on \(machine)")
        }
        return (try? .ok(json: Self.json(["machine": machine, "stopped": id]))) ?? .failed(code: "failed", message: "encoding")
    }

    /// Trainings are keyed by the machine's name, whichever way the operator named it.
    private func canonicalName(_ machine: String) async -> String? {
        guard await fleet.knows(machine) else { return nil }
        let wanted = machine.uppercased()
        let match = await fleet.statuses().first { $0.name.uppercased() == wanted || $0.address.uppercased() == wanted }
        return match?.name ?? machine
    }

    struct CommandAnswer: Encodable {
        var machine: String
        var operation: String
        var request: String
        var result: String
        var succeeded: Bool
    }

    struct TrainingAnswer: Encodable {
        var machine: String
        var training: String
        var durationSeconds: Int
        var stages: Int

        enum CodingKeys: String, CodingKey {
            case machine, training, stages
            case durationSeconds = "duration_s"
        }
    }

    static func json(_ value: some Encodable) throws -> String {
        try ReportJSON.string(value)
    }
}
