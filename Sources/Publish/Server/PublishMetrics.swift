/// Counters for the daemon's own metrics (Prometheus comes later), read through
/// ``MetricsServer/metrics``.
public struct PublishMetrics: Sendable, Equatable {
    /// Readers connected now.
    public var readersConnected = 0
    /// Readers accepted since the server started.
    public var readersAccepted = 0
    /// Messages published, each counted once however many readers got it: the last `seq`.
    public var messagesPublished: UInt64 = 0
    /// Messages whose publisher was not on the server's loop: each cost two executor jobs more,
    /// one onto the loop and one back. None in the daemon, whose machine workers run on the
    /// server's loop (``MetricsServer/publish(_:machine:sessionID:forwarding:payload:)``).
    public var messagesPublishedOffLoop: UInt64 = 0
    /// Copies of `sample` messages not written to a reader over its soft limit, summed over
    /// readers: the total of the `seq` gaps readers saw.
    public var messagesDropped: UInt64 = 0
    /// Readers closed because their backlog passed the hard limit.
    public var readersDisconnectedSlow = 0
    /// Readers closed because of what they sent (not JSON, not a watch, a line too long).
    public var readersDisconnectedBadInput = 0
    /// Readers refused because `ReaderLimits.readers` were connected already.
    public var readersRefusedFull = 0

    public init() {}
}
