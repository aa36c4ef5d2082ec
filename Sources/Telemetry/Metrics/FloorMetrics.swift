package import Prometheus

/// The gym's floor on the daemon's Prometheus endpoint (`[fleet]` on, docs/prometheus.md):
/// the claims this gateway holds, and the sessions it carried on, handed over and split. On
/// ``DaemonMetrics``' registry, registered only with the floor on, as ``MQTTMetrics`` is with MQTT.
package final class FloorMetrics: Sendable {
    private let claimsHeld: Gauge
    private let adoptions: Counter
    private let handovers: Counter
    private let splitSessions: Counter

    package init(registry: PrometheusCollectorRegistry) {
        let r = registry
        claimsHeld = r.makeGauge(descriptor: DaemonMetrics.name("floor_claims_held", "", "Machines this gateway holds a live claim of on the floor."))
        adoptions = r.makeCounter(descriptor: DaemonMetrics.name(
            "floor_adoptions", "total", "Sessions carried on here from another gateway's mirrored checkpoint."))
        handovers = r.makeCounter(descriptor: DaemonMetrics.name(
            "floor_handovers", "total", "Machines handed to the floor on purpose (handover, or a stop with handover_on_stop)."))
        splitSessions = r.makeCounter(descriptor: DaemonMetrics.name(
            "floor_split_sessions", "total", "Rides that split here: their first part's checkpoint reached no broker."))
    }

    package func setClaimsHeld(_ count: Int) { claimsHeld.set(Int64(max(0, count))) }
    package func adopted() { adoptions.increment() }
    package func handedOver() { handovers.increment() }
    package func split() { splitSessions.increment() }
}
