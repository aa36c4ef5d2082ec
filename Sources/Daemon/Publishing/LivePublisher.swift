package import FTMS
package import Publish
package import Workout

/// Everything the daemon tells the metrics socket (contract §7), in the payloads `replay
/// --publish` uses too, and, with `[mqtt]` on, the same envelopes on the broker
/// (``MQTTPublisher``). A publish that fails (the server closed during shutdown) is not an
/// error for the caller: live metrics are best-effort, the store is what must not lose.
package struct LivePublisher: Sendable {
    package let server: MetricsServer?
    package let mqtt: MQTTPublisher?

    package init(server: MetricsServer?, mqtt: MQTTPublisher? = nil) {
        self.server = server
        self.mqtt = mqtt
    }

    package func machine(
        _ machine: MachineIdentity, state: StaticString, manufacturer: String? = nil, notify: String? = nil, reason: String? = nil,
        adapter: String? = nil, adapterReason: String? = nil, features: FitnessMachineFeature? = nil
    ) async {
        await send(.machine, machine: machine.name, payload: MetricsPayloads.machine(
            machine, state: state, manufacturer: manufacturer, notify: notify, reason: reason, adapter: adapter,
            adapterReason: adapterReason, features: features))
        mqtt?.announce(machine, manufacturer: manufacturer)
    }

    /// Encoded only if a reader of the socket watches this machine's samples or MQTT publishes
    /// samples (once, shared by both): the sample costs no JSON otherwise. `session`, the open
    /// session's progress, adds its totals (``MetricsPayloads/sample(_:session:)``).
    package func sample(_ record: DataRecord, machine: String, sessionID: String?, session: SessionProgress? = nil) async {
        await sendIfRead(.sample, machine: machine, sessionID: sessionID) { MetricsPayloads.sample(record, session: session) }
    }

    /// Like ``sample(_:machine:sessionID:)``: encoded only for someone who will read it.
    package func status(_ status: FitnessMachineStatus, machine: String, sessionID: String?) async {
        await sendIfRead(.status, machine: machine, sessionID: sessionID) { MetricsPayloads.decoded(.status(status)) }
    }

    /// `session_state`, and for a finished session its `session_summary` right after.
    package func session(_ event: SessionEvent, machine: String) async {
        let id = event.sessionID
        let envelope = await send(.sessionState, machine: machine, sessionID: id, payload: MetricsPayloads.sessionState(event))
        if let envelope { mqtt?.sessionChanged(machine, openEnvelope: event.summary == nil ? envelope : nil) }
        if let summary = event.summary {
            await send(.sessionSummary, machine: machine, sessionID: id, payload: MetricsPayloads.summary(summary))
        }
    }

    package func control(_ payload: JSONPayload, machine: String, sessionID: String?) async {
        await send(.control, machine: machine, sessionID: sessionID, payload: payload)
    }

    package func upload(_ payload: JSONPayload) async {
        await send(.upload, payload: payload)
    }

    private func sendIfRead(_ type: MessageType, machine: String, sessionID: String?, payload: @Sendable () -> JSONPayload) async {
        guard let server else { return }
        let forwarding = mqtt?.forwards(type) ?? false
        // On the server's loop (the daemon's workers are), without two job hops per message.
        let line: (seq: UInt64, envelope: [UInt8]?)?
        if let now = server.publishIfReadOnLoop(type, machine: machine, sessionID: sessionID, forwarding: forwarding, payload: payload) {
            line = try? now.get()
        } else {
            line = try? await server.publishIfRead(type, machine: machine, sessionID: sessionID, forwarding: forwarding, payload: payload)
        }
        guard let envelope = line?.envelope else { return }
        mqtt?.forward(type, machine: machine, envelope: envelope)
    }

    /// The envelope it forwarded to MQTT; `nil` without MQTT.
    @discardableResult
    private func send(_ type: MessageType, machine: String? = nil, sessionID: String? = nil, payload: JSONPayload) async -> [UInt8]? {
        guard let server else { return nil }
        guard let mqtt else {
            _ = try? await server.publish(type, machine: machine, sessionID: sessionID, payload: payload)
            return nil
        }
        guard let line = try? await server.publishLine(type, machine: machine, sessionID: sessionID, payload: payload) else { return nil }
        mqtt.forward(type, machine: machine, envelope: line.envelope)
        return line.envelope
    }
}
