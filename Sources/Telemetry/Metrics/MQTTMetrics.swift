package import Prometheus
import Synchronization

/// The MQTT broker connection on the daemon's Prometheus endpoint (docs/prometheus.md): is it
/// connected, why did it last fail (a bounded label: `not_authorised`, `tls`, `refused`,
/// `unreachable`, `lost`, `other`), and what the outgoing queue holds, delivers and drops.
/// On ``DaemonMetrics``' registry, beside the metrics socket's series.
package final class MQTTMetrics: Sendable {
    static let errorReason = LabelValues("reason", ["none", "not_authorised", "tls", "refused", "unreachable", "lost"])

    private let connected: Gauge
    private let lastError: [String: Gauge]
    private let failures: LabelledCounters
    private let queued: Gauge
    private let delivered: Counter
    private let dropped: Counter
    private let totals = Mutex<(delivered: UInt64, dropped: UInt64)>((0, 0))

    package init(registry: PrometheusCollectorRegistry) {
        let r = registry
        connected = r.makeGauge(descriptor: DaemonMetrics.name("mqtt_connected", "", "1 while the MQTT broker connection is up, else 0."))
        let reason = DaemonMetrics.name("mqtt_last_error", "", "1 for the reason the broker connection last failed (none: no failure yet).")
        lastError = Dictionary(uniqueKeysWithValues: Self.errorReason.values.map { value in
            (value, r.makeGauge(descriptor: reason, labels: [("reason", value)]))
        })
        lastError["none"]?.set(Int64(1))
        failures = LabelledCounters(r, "mqtt_connect_failures", "Broker connection attempts that failed or connections lost, by reason.", Self.errorReason)
        queued = r.makeGauge(descriptor: DaemonMetrics.name("mqtt_messages_queued", "", "Messages waiting for the broker (QoS 1 ones until acknowledged)."))
        delivered = r.makeCounter(descriptor: DaemonMetrics.name("mqtt_messages_delivered", "total", "Messages written to (QoS 0) or acknowledged by (QoS 1) the broker."))
        dropped = r.makeCounter(descriptor: DaemonMetrics.name("mqtt_messages_dropped", "total", "Messages the full outgoing queue dropped (samples first)."))
    }

    package func setConnected(_ up: Bool) { connected.set(Int64(up ? 1 : 0)) }

    /// A failed attempt or a lost connection; `reason` is classified from the client's line.
    package func failed(_ reason: String) {
        let label = Self.classify(reason)
        failures.increment(label)
        for (value, gauge) in lastError { gauge.set(Int64(value == label ? 1 : 0)) }
        connected.set(Int64(0))
    }

    /// The client's running totals; the counters advance by what is new.
    package func observe(queued: Int, delivered: UInt64, dropped: UInt64) {
        self.queued.set(Int64(max(0, queued)))
        let (newDelivered, newDropped) = totals.withLock { totals in
            defer { totals = (delivered, dropped) }
            return (delivered >= totals.delivered ? delivered - totals.delivered : delivered,
                    dropped >= totals.dropped ? dropped - totals.dropped : dropped)
        }
        if newDelivered > 0 { self.delivered.increment(by: Int64(clamping: newDelivered)) }
        if newDropped > 0 { self.dropped.increment(by: Int64(clamping: newDropped)) }
    }

    static func classify(_ reason: String) -> String {
        if reason.contains("not authorised") || reason.contains("bad user name or password") { return "not_authorised" }
        if reason.contains("TLS") || reason.contains("CA file") { return "tls" }
        if reason.contains("connection refused") || reason.contains("refused the connection") { return "refused" }
        if reason.contains("host name not found") || reason.contains("unreachable") || reason.contains("timed out") { return "unreachable" }
        if reason.contains("lost") || reason.contains("keepalive") { return "lost" }
        return LabelValues.other
    }
}
