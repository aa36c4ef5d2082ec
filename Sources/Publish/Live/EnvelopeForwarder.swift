public import Workout

/// A second transport for the metrics socket's envelopes: the daemon's MQTT publisher.
///
/// A protocol so that Publish, which `replay --publish` and the dashboard link, does not link
/// libmosquitto: the daemon hands ``LivePublisher`` its broker publisher, replay hands none.
/// Every call is made on the publishing path and must not wait.
package protocol EnvelopeForwarder: Sendable {
    /// Whether envelopes of `type` go to the broker: the socket then encodes one even when no
    /// reader of the socket wants it.
    func forwards(_ type: MessageType) -> Bool
    /// The socket's line for `type`, without its newline, byte for byte.
    func forward(_ type: MessageType, machine: String?, envelope: [UInt8])
    /// A machine's identity, for whatever the broker announces once per machine.
    func announce(_ machine: MachineIdentity, manufacturer: String?)
    /// A session of `machine` changed: `openEnvelope` is its `session_state` while it is open,
    /// nil once it finished or was dropped.
    func sessionChanged(_ machine: String, openEnvelope: [UInt8]?)
}
