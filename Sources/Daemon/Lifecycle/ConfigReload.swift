import DaemonConfig
import Logging

/// What SIGHUP does (`systemctl reload`): read the file again; a bad one is one logged line
/// and changes nothing. The log level and `[machines]`/`[bluetooth]` apply at once (the
/// fleet reconnects with the new list). Sockets, the store, the backend and the session
/// rules are wired in at start, so a change there is named in the log as needing
/// `systemctl restart`. With MQTT on, a machine taken off `machines.allow` loses its Home
/// Assistant entities at once.
actor ConfigReload {
    let path: String?
    let environment: [String: String]
    let level: JournalLogHandler.Level
    let logger: Logger
    let fleet: MachineFleet
    let mqtt: MQTTPublisher?
    private var running: DaemonConfig

    init(
        path: String?, running: DaemonConfig, environment: [String: String], level: JournalLogHandler.Level, logger: Logger, fleet: MachineFleet,
        mqtt: MQTTPublisher? = nil
    ) {
        self.mqtt = mqtt
        self.path = path
        self.running = running
        self.environment = environment
        self.level = level
        self.logger = logger
        self.fleet = fleet
    }

    func run() async {
        guard let path else {
            logger.notice("SIGHUP: no config file to re-read (started without one)")
            return
        }
        let fresh: DaemonConfig
        do {
            fresh = try DaemonConfig.load(path: path).resolvingPaths(environment: environment)
        } catch {
            logger.error("SIGHUP: config not reloaded, the running one stays: \(error)")
            return
        }
        var applied: [String] = []
        if let newLevel = Logger.Level(rawValue: fresh.log.level), newLevel != level.current {
            level.current = newLevel
            applied.append("log level \(newLevel)")
        }
        if fresh.machines != running.machines || fresh.bluetooth != running.bluetooth {
            await fleet.reconfigure(FleetSettings(config: fresh, environment: environment))
            if let mqtt, fresh.machines.allow != running.machines.allow {
                let (allow, logger) = (fresh.machines.allow, logger)
                Task { await mqtt.removeEntities(keeping: allow, window: .seconds(5), logger: logger) }
            }
            running.machines = fresh.machines
            running.bluetooth = fresh.bluetooth
            applied.append("[machines]/[bluetooth]")
        }
        running.log = fresh.log
        var pending: [String] = []
        if fresh.sessions != running.sessions { pending.append("[sessions]") }
        if fresh.backend != running.backend { pending.append("[backend]") }
        if fresh.state != running.state { pending.append("[state]") }
        if fresh.metricsSocket != running.metricsSocket || fresh.controlSocket != running.controlSocket { pending.append("sockets") }
        if fresh.prometheus != running.prometheus { pending.append("[prometheus]") }
        if fresh.mqtt != running.mqtt { pending.append("[mqtt]") }
        var line = "SIGHUP: config re-read from \(path)"
        if !applied.isEmpty { line += "; applied: \(applied.joined(separator: ", "))" }
        if !pending.isEmpty { line += "; changes to \(pending.joined(separator: ", ")) take effect at the next restart" }
        logger.notice("\(line)")
    }
}
