import Control
import Publish
import ServiceLifecycle
import Telemetry

/// The daemon's listening ends and its broker link. They are opened before READY=1, so a
/// reader that connects once systemd says the daemon is up finds them (contract §10), and
/// this service owns them from then on and closes them last: the group shuts services down in
/// reverse order, so readers still see the sessions the fleet checkpoints and finishes on its
/// way out. MQTT is flushed first, then the HTTP endpoint and the two sockets close.
struct SocketsService: Service {
    let metrics: MetricsServer
    let control: ControlServer
    let prometheus: PrometheusEndpoint?
    let mqtt: MQTTPublisher?

    func run() async throws {
        try? await gracefulShutdown()
        await close()
    }

    /// Also what a start-up that fails half-way calls, before any service runs.
    func close() async {
        await mqtt?.stop()
        await prometheus?.close()
        await control.close()
        await metrics.close()
    }
}
