/// What happened to the connection, for a log line each (the caller decides which to log:
/// a broker down for a week must not write a line per retry).
public enum MQTTEvent: Sendable, Equatable {
    case connected
    /// A connection attempt failed (refused, TLS, login); the client tries again after `retryIn`.
    case connectFailed(reason: String, retryIn: Duration)
    /// An established connection was lost; the client tries again after `retryIn`.
    case connectionLost(reason: String, retryIn: Duration)
}
