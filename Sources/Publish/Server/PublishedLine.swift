/// What one ``MetricsServer/publish(_:machine:sessionID:forwarding:payload:)`` did.
public struct PublishedLine: Sendable, Equatable {
    /// The message's number in the daemon-wide stream.
    public let seq: UInt64
    /// The envelope's bytes without the newline, when the caller forwards them and the line
    /// was made; nil otherwise.
    public let envelope: [UInt8]?
}
