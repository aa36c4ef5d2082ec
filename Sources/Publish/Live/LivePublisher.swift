package import FTMS
import JSON
package import Workout

/// Everything the daemon tells the metrics socket (contract §7), in the payloads `replay
/// --publish` uses too, and, with `[mqtt]` on, the same envelopes on the broker (the
/// daemon's MQTT publisher, an ``EnvelopeForwarder``). A publish that fails (the server closed during shutdown) is not an
/// error for the caller: live metrics are best-effort, the store is what must not lose.
package struct LivePublisher: Sendable {
    package let server: MetricsServer?
    package let mqtt: (any EnvelopeForwarder)?

    package init(server: MetricsServer?, mqtt: (any EnvelopeForwarder)? = nil) {
        self.server = server
        self.mqtt = mqtt
    }

    package nonisolated(nonsending) func machine(
        _ machine: MachineIdentity, state: StaticString, manufacturer: String? = nil, notify: String? = nil, reason: String? = nil,
        adapter: String? = nil, adapterReason: String? = nil, features: FitnessMachineFeature? = nil
    ) async {
        await send(.machine, machine: machine.name, state: "\(state)") { json in
            MetricsPayloads.writeMachine(
                machine, state: state, manufacturer: manufacturer, notify: notify, reason: reason, adapter: adapter,
                adapterReason: adapterReason, features: features, into: &json)
        }
        mqtt?.announce(machine, manufacturer: manufacturer)
    }

    /// Encoded only if a reader of the socket watches this machine's samples or MQTT publishes
    /// samples (once, shared by both): the sample costs no JSON otherwise. `session`, the open
    /// session's progress, adds its totals (``MetricsPayloads/sample(_:session:)``).
    package nonisolated(nonsending) func sample(_ record: DataRecord, machine: String, sessionID: String?, session: SessionProgress? = nil) async {
        await send(.sample, machine: machine, sessionID: sessionID) { MetricsPayloads.writeSample(record, session: session, into: &$0) }
    }

    /// Whether ``sampleNow(_:machine:sessionID:session:)`` and ``statusNow(_:machine:sessionID:)``
    /// can publish from the calling thread: it is the metrics socket's loop, or there is no socket.
    package var publishesHere: Bool { server.map { $0.eventLoop.inEventLoop } ?? true }

    /// ``sample(_:machine:sessionID:session:)`` from synchronous code on the metrics socket's
    /// loop (``publishesHere``): a notification handled in the turn that read it.
    package func sampleNow(_ record: DataRecord, machine: String, sessionID: String?, session: SessionProgress? = nil) {
        sendNow(.sample, machine: machine, sessionID: sessionID) { MetricsPayloads.writeSample(record, session: session, into: &$0) }
    }

    /// ``status(_:machine:sessionID:)`` from synchronous code on the metrics socket's loop.
    package func statusNow(_ status: FitnessMachineStatus, machine: String, sessionID: String?) {
        sendNow(.status, machine: machine, sessionID: sessionID) { FTMSMessage.status(status).writeJSON(into: &$0) }
    }

    /// Like ``sample(_:machine:sessionID:)``: encoded only for someone who will read it.
    package nonisolated(nonsending) func status(_ status: FitnessMachineStatus, machine: String, sessionID: String?) async {
        await send(.status, machine: machine, sessionID: sessionID) { FTMSMessage.status(status).writeJSON(into: &$0) }
    }

    /// `session_state`, and for a finished session its `session_summary` right after.
    package nonisolated(nonsending) func session(_ event: SessionEvent, machine: String) async {
        let id = event.sessionID
        let envelope = await send(.sessionState, machine: machine, sessionID: id, state: "\(event.state)") {
            MetricsPayloads.writeSessionState(event, into: &$0)
        }
        if let envelope { mqtt?.sessionChanged(machine, openEnvelope: event.summary == nil ? envelope : nil) }
        if let summary = event.summary {
            await send(.sessionSummary, machine: machine, sessionID: id, payload: MetricsPayloads.summary(summary))
        }
    }

    package nonisolated(nonsending) func control(_ payload: JSONPayload, machine: String, sessionID: String?) async {
        await send(.control, machine: machine, sessionID: sessionID, payload: payload)
    }

    package nonisolated(nonsending) func upload(_ payload: JSONPayload) async {
        await send(.upload, payload: payload)
    }

    @discardableResult
    private nonisolated(nonsending) func send(_ type: MessageType, machine: String? = nil, sessionID: String? = nil, payload: JSONPayload) async -> [UInt8]? {
        await send(type, machine: machine, sessionID: sessionID, state: payload.state) { json in
            payload.bytes.withUnsafeBufferPointer { json.append(contentsOf: $0) }
        }
    }

    /// ``send(_:machine:sessionID:state:writing:)`` on the socket's loop, synchronously.
    private func sendNow(_ type: MessageType, machine: String, sessionID: String?, writing write: @Sendable (inout JSONBuffer) -> Void) {
        guard let server else { return }
        let forwarding = mqtt?.forwards(type) ?? false
        guard let envelope = server.publishNow(type, machine: machine, sessionID: sessionID, forwarding: forwarding, writing: write)?.envelope
        else { return }
        mqtt?.forward(type, machine: machine, envelope: envelope)
    }

    /// Publishes on the socket, the payload written by `write` straight into the line, and
    /// hands the envelope to MQTT when the broker takes this type. `state` is the payload's
    /// `"state"`. The envelope it forwarded to MQTT; nil without MQTT.
    @discardableResult
    private nonisolated(nonsending) func send(
        _ type: MessageType, machine: String? = nil, sessionID: String? = nil, state: String? = nil,
        writing write: @Sendable (inout JSONBuffer) -> Void
    ) async -> [UInt8]? {
        guard let server else { return nil }
        let forwarding = mqtt?.forwards(type) ?? false
        guard let envelope = try? await server.publish(
            type, machine: machine, sessionID: sessionID, state: state, forwarding: forwarding, writing: write
        ).envelope
        else { return nil }
        mqtt?.forward(type, machine: machine, envelope: envelope)
        return envelope
    }
}
