/// A snapshot of the client, for `status`, Prometheus and tests.
public struct MQTTStatus: Sendable, Equatable {
    public var state: MQTTConnectionState = .stopped
    /// The latest failure, one line (`broker refused the login: not authorised`), kept after
    /// a later success so an operator can still see what went wrong last.
    public var lastError: String?
    /// Connections that reached CONNACK.
    public var connections: UInt64 = 0
    /// Messages waiting, including QoS 1 ones waiting for their PUBACK.
    public var queued: Int = 0
    /// Messages written to the broker (QoS 0) or acknowledged by it (QoS 1).
    public var delivered: UInt64 = 0
    /// Messages the full queue dropped.
    public var dropped: UInt64 = 0
    /// Messages received on subscriptions.
    public var received: UInt64 = 0

    public init() {}
}
