import Publish
import Store
import Telemetry

/// What the watchdog asks each round: one line of what the daemon is doing, for systemd's
/// `STATUS=`. Reading it touches the store's database thread, the metrics socket's event loop
/// and the fleet's actor, so its coming back proves all three make progress; on the way it
/// refreshes the gauges Prometheus reads between events.
struct StatusProbe: Sendable {
    let control: DaemonControl
    let metricsServer: MetricsServer
    let metrics: DaemonMetrics
    let mqtt: MQTTPublisher?
    let mqttMetrics: MQTTMetrics?
    let backendConfigured: Bool
    /// Refreshes the store's gauges and MQTT topic, and logs a crossing of the free-space level.
    var storeWatch: StoreWatch? = nil

    func line() async -> String {
        guard let status = try? await control.snapshot() else { return "store unavailable" }
        metrics.setQueueDepth(pending: status.queue.pending, uploaded: status.queue.uploaded, dead: status.queue.dead)
        metrics.setOldestPendingAge(status.queue.oldestPendingAgeSeconds.map { .seconds($0) })
        let socket = await metricsServer.metrics
        metrics.observeMetricsSocket(
            readers: socket.readersConnected, messagesDropped: socket.messagesDropped,
            readersDisconnected: UInt64(socket.readersDisconnectedSlow))
        let ready = status.machines.filter { $0.state == .ready }.count
        let riding = status.machines.filter { $0.sessionID != nil }.count
        var line = "\(ready) of \(status.machines.count) machines ready, \(riding) sessions open, \(status.queue.pending) pending uploads"
        if let store = status.store {
            await storeWatch?.observe(store)
            line += Self.storeClause(store)
        }
        if !status.bus.connected { line += "; system bus: \(status.bus.error ?? "connecting")" }
        if !status.account.loggedIn, backendConfigured { line += "; login required" }
        if let clock = status.clock, clock.sessionsWaiting > 0 { line += "; \(clock.sessionsWaiting) sessions wait for a true date" }
        if let mqtt {
            let broker = mqtt.client.status
            mqttMetrics?.observe(queued: broker.queued, delivered: broker.delivered, dropped: broker.dropped)
            if broker.state != .connected { line += "; MQTT: \(broker.lastError ?? "connecting")" }
        }
        return line
    }

    /// What `STATUS=` says of the store when there is something to say.
    static func storeClause(_ store: DaemonStatus.Store) -> String {
        var clause = ""
        if let moved = store.movedAside {
            clause += "; DAMAGED database moved aside to \(moved.path): run ftms-bridge salvage"
        } else if let damaged = store.damagedFiles.first {
            clause += "; damaged database \(damaged) not salvaged yet"
        }
        if store.inMemory {
            clause += "; STORE IN MEMORY ONLY, sessions kept and uploaded from memory until the disk takes writes: \(store.error ?? store.cause ?? "refused")"
        } else if !store.writable {
            clause += "; STORE CANNOT WRITE: \(store.error ?? store.cause ?? "refused")"
        }
        if store.heldSessions > 0 { clause += "; \(store.heldSessions) finished session(s) held in memory" }
        if store.lowSpace, let free = store.freeBytes { clause += "; state disk low: \(ByteText.of(free)) free" }
        return clause
    }
}
