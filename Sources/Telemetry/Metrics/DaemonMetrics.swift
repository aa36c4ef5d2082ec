import Clocks
package import Prometheus
import Synchronization

/// The daemon's Prometheus metrics, one typed method per event, on a registry of its own.
///
/// Why `PrometheusCollectorRegistry` directly rather than swift-metrics' API: no global
/// `MetricsSystem.bootstrap` (the house has no singletons, and two daemons in one test process
/// must not share counters), typed gauges that can be *set* (swift-metrics' `Gauge` is a
/// `Recorder`), and every labelled series created up front so it reads 0 before its first
/// event. Libraries that speak swift-metrics can still be given ``factory``, an explicit
/// `MetricsFactory` over the same registry (`Counter(label:dimensions:factory:)`), and their
/// metrics appear on the same endpoint.
///
/// Label values come from closed lists (`LabelValues`); anything else counts as `other`, so
/// no input can grow the series count. `docs/prometheus.md` lists every metric.
package final class DaemonMetrics: Sendable {
    static let namespace = "ftms_bridge"

    /// Everything below is registered here; ``PrometheusEndpoint`` serves it.
    package let registry: PrometheusCollectorRegistry

    private let machinesConnected: Gauge
    private let notifications: LabelledCounters
    private let decodeErrors: LabelledCounters
    private let sessionsOpened: Counter
    private let sessionsFinished: LabelledCounters
    private let sessionsDropped: LabelledCounters
    private let queueSessions: [String: Gauge]
    private let oldestPendingAge: Gauge
    private let uploadRuns: LabelledCounters
    private let uploadSessions: LabelledCounters
    private let tokenRefreshes: LabelledCounters
    private let controlCommands: LabelPairCounters
    private let socketReaders: Gauge
    private let storeWritable: Gauge
    private let storeFreeBytes: Gauge
    private let storeHeldSessions: Gauge
    private let storeDamagedFiles: Gauge
    private let storeInMemory: Gauge
    private let socketMessagesDropped: Counter
    private let socketReadersDisconnected: Counter
    /// The metrics socket's own totals at the last ``observeMetricsSocket(readers:messagesDropped:readersDisconnected:)``.
    private let socketTotals = Mutex<(dropped: UInt64, disconnected: UInt64)>((0, 0))

    /// - Parameter version: the daemon's version, for `ftms_bridge_build_info{version}`.
    package init(version: String, registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        let r = registry
        r.makeGauge(descriptor: Self.name("build_info", "", "The daemon's version, as a label; always 1."), labels: [("version", version)]).set(to: 1)
        machinesConnected = r.makeGauge(descriptor: Self.name("machines_connected", "", "Machines connected and subscribed now."))
        notifications = LabelledCounters(r, "notifications", "FTMS notifications and indications received, by characteristic.", .characteristic)
        decodeErrors = LabelledCounters(r, "decode_errors", "FTMS values that failed to decode, by characteristic.", .characteristic)
        sessionsOpened = r.makeCounter(descriptor: Self.name("sessions_opened", "total", "Workout sessions started."))
        sessionsFinished = LabelledCounters(r, "sessions_finished", "Workout sessions finished and queued for upload, by end reason.", .endReason)
        sessionsDropped = LabelledCounters(r, "sessions_dropped", "Workout sessions ended below the minimum and not kept, by reason.", .dropReason)
        let queue = Self.name("queue_sessions", "", "Sessions in the upload queue, by state.")
        queueSessions = Dictionary(uniqueKeysWithValues: LabelValues.queueState.values.dropLast().map { state in
            (state, r.makeGauge(descriptor: queue, labels: [("state", state)]))
        })
        oldestPendingAge = r.makeGauge(descriptor: Self.name(
            "queue_oldest_pending_age", "seconds", "Age of the oldest session waiting for upload; 0 when none waits."))
        uploadRuns = LabelledCounters(r, "upload_runs", "Upload runs, by outcome.", .uploadRun)
        uploadSessions = LabelledCounters(r, "upload_sessions", "Sessions sent to the backend, by what became of each.", .uploadSession)
        tokenRefreshes = LabelledCounters(r, "token_refreshes", "Access token refreshes, by result.", .refresh)
        controlCommands = LabelPairCounters(r, "control_commands", "Control socket commands, by command and result.", .command, .commandResult)
        storeWritable = r.makeGauge(descriptor: Self.name(
            "store_writable", "", "1 while the state database takes writes; 0 while it refuses them (disk full, read-only, I/O error)."))
        storeFreeBytes = r.makeGauge(descriptor: Self.name("store_free", "bytes", "Free space on the state directory's file system."))
        storeHeldSessions = r.makeGauge(descriptor: Self.name(
            "store_held_sessions", "", "Finished sessions the store refused, held in memory until it takes writes again."))
        storeDamagedFiles = r.makeGauge(descriptor: Self.name(
            "store_damaged_files", "", "Damaged state databases moved aside and not salvaged yet (ftms-bridge salvage)."))
        storeInMemory = r.makeGauge(descriptor: Self.name(
            "store_in_memory", "", "1 while the store runs in memory because its file cannot be written: sessions are kept and uploaded from memory."))
        socketReaders = r.makeGauge(descriptor: Self.name("metrics_socket_readers", "", "Readers connected to the metrics socket now."))
        socketMessagesDropped = r.makeCounter(descriptor: Self.name(
            "metrics_socket_messages_dropped", "total", "Sample messages not written to a slow metrics-socket reader."))
        socketReadersDisconnected = r.makeCounter(descriptor: Self.name(
            "metrics_socket_readers_disconnected", "total", "Metrics-socket readers closed for being too slow."))
    }

    /// A swift-metrics `MetricsFactory` over ``registry``, for libraries that take one. Use
    /// names that are not ``DaemonMetrics``' own: one name with two types is a registry trap.
    package var factory: PrometheusMetricsFactory { PrometheusMetricsFactory(registry: registry) }

    /// The text exposition format, version 0.0.4: what `GET /metrics` returns.
    package func exposition() -> [UInt8] { registry.emitToBuffer() }

    // MARK: Machines

    package func setMachinesConnected(_ count: Int) { machinesConnected.set(Int64(max(0, count))) }

    /// `characteristic` is the contract §3.1 name (`indoor_bike_data`); others count as `other`.
    /// One notification counted, for a caller that counts rarely; the daemon's workers keep
    /// ``notificationCounter(characteristic:)`` instead. One lookup path for both.
    package func notificationReceived(characteristic: String) { notificationCounter(characteristic: characteristic).increment() }

    package func decodeFailed(characteristic: String) { decodeErrors.increment(characteristic) }

    /// The notification counter of one characteristic, looked up once, for a caller that counts
    /// every notification: ``notificationReceived(characteristic:)`` bounds and looks up its
    /// label each time (a string built, hashed twice, compared with the list), 1.6 % of the event
    /// loop's CPU with ten machines riding (docs/performance.md). Same series, same
    /// `other` for a name not on the list.
    package func notificationCounter(characteristic: String) -> CounterHandle {
        CounterHandle(notifications.counter(characteristic))
    }

    // MARK: Sessions

    package func sessionOpened() { sessionsOpened.increment() }

    /// `reason` is Workout's `EndReason` raw value (`idle`, `disconnected`…).
    package func sessionFinished(reason: String) { sessionsFinished.increment(reason) }

    /// `reason` is Workout's `DropReason` raw value (`too_short`, `no_distance_or_energy`).
    package func sessionDropped(reason: String) { sessionsDropped.increment(reason) }

    // MARK: Queue and upload

    /// The store's queue counts, as `ftms-bridge queue` shows them.
    package func setQueueDepth(pending: Int, uploaded: Int, dead: Int) {
        for (state, count) in [("pending", pending), ("uploaded", uploaded), ("dead", dead)] {
            queueSessions[state]?.set(Int64(max(0, count)))
        }
    }

    /// The oldest pending session's age; nil (nothing pending) reads 0.
    package func setOldestPendingAge(_ age: Duration?) {
        oldestPendingAge.set(max(0, (age ?? .zero).seconds))
    }

    /// `result` is the run's `UploadOutcome`: `settled`, `retry` or `blocked`.
    package func uploadRun(result: String) { uploadRuns.increment(result) }

    /// A batch's `BatchReport` counts.
    package func uploadedSessions(accepted: Int, duplicates: Int, retried: Int, dead: Int) {
        uploadSessions.increment("accepted", by: accepted)
        uploadSessions.increment("duplicate", by: duplicates)
        uploadSessions.increment("retried", by: retried)
        uploadSessions.increment("dead", by: dead)
    }

    /// `result`: `success`, `login_required` (the refresh token was refused) or `failed`.
    package func tokenRefreshed(result: String) { tokenRefreshes.increment(result) }

    // MARK: Store

    /// The store as ``StoreWatch`` reads it each watchdog round and at each change.
    package func observeStore(writable: Bool, freeBytes: Int64?, heldSessions: Int, damagedFiles: Int, inMemory: Bool = false) {
        storeWritable.set(Int64(writable ? 1 : 0))
        storeInMemory.set(Int64(inMemory ? 1 : 0))
        if let freeBytes { storeFreeBytes.set(max(0, freeBytes)) }
        storeHeldSessions.set(Int64(max(0, heldSessions)))
        storeDamagedFiles.set(Int64(max(0, damagedFiles)))
    }

    // MARK: Sockets

    /// `command` is contract §7's command name; `result` is `ok`, `refused` or `error`.
    package func controlCommand(_ command: String, result: String) { controlCommands.increment(command, result) }

    package func setMetricsSocketReaders(_ count: Int) { socketReaders.set(Int64(max(0, count))) }

    /// Takes the metrics socket's own running totals (Publish's `PublishMetrics`) and advances
    /// the counters by what is new since the last call, so the daemon can copy them on any
    /// schedule. A smaller total (a restarted server) counts from zero again.
    package func observeMetricsSocket(readers: Int, messagesDropped: UInt64, readersDisconnected: UInt64) {
        setMetricsSocketReaders(readers)
        let (dropped, disconnected) = socketTotals.withLock { totals in
            let delta = (Self.advance(&totals.dropped, to: messagesDropped), Self.advance(&totals.disconnected, to: readersDisconnected))
            return delta
        }
        if dropped > 0 { socketMessagesDropped.increment(by: Int64(clamping: dropped)) }
        if disconnected > 0 { socketReadersDisconnected.increment(by: Int64(clamping: disconnected)) }
    }

    private static func advance(_ last: inout UInt64, to total: UInt64) -> UInt64 {
        defer { last = total }
        return total >= last ? total - last : total
    }

    static func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: namespace, metricName: metric, unitName: unit, helpText: help)
    }
}
