/// Where the client is with its broker.
public enum MQTTConnectionState: String, Sendable, Equatable {
    /// Not started, or stopped.
    case stopped
    /// A connection attempt is under way (TCP, TLS, CONNECT/CONNACK).
    case connecting
    /// CONNACK accepted: messages flow.
    case connected
    /// The last attempt failed or the connection was lost; the next attempt is scheduled.
    case waiting

    /// The Prometheus gauge's value: 1 only when connected.
    public var gaugeValue: Int { self == .connected ? 1 : 0 }
}
