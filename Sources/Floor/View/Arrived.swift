/// A floor message with the instant it arrived on the receiver's monotonic clock: liveness and
/// a checkpoint's age are measured from arrival, never from a sender's clock.
public struct Arrived<Message: Sendable & Hashable>: Sendable, Hashable {
    public var message: Message
    public var at: Duration

    public init(_ message: Message, at: Duration) {
        self.message = message
        self.at = at
    }
}
