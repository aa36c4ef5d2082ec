public import NIOCore
public import Publish

/// What a ``MetricsSocketClient`` reports, in the order it happens on each connection:
/// ``connected``, then one ``message(_:line:)`` or ``unreadable(line:_:)`` per line, then
/// ``disconnected(_:retryIn:)``; and ``disconnected(_:retryIn:)`` alone for each
/// attempt that could not connect.
public enum MetricsSocketEvent: Sendable, Equatable {
    /// A connection is up (and the client's watch request sent): the daemon's `hello` comes next.
    case connected
    /// One envelope, and its line as received (without its newline), for a reader that passes
    /// lines on unchanged (`watch --json`).
    case message(MetricsMessage, line: ByteBuffer)
    /// A line that is not an envelope: skipped, and the connection goes on.
    case unreadable(line: ByteBuffer, EnvelopeError)
    /// The connection ended (or could not be made), and why; the client connects again after
    /// `retryIn`, its backoff's next delay.
    case disconnected(MetricsSocketDisconnection, retryIn: Duration)
}
