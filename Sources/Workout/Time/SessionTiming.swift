/// Where a session lies on the monotonic clock it was timed on, and whether its dates are true:
/// what lets the gateway date a session again once its wall clock is known (contract §5).
public struct SessionTiming: Sendable, Hashable {
    /// The boot whose `CLOCK_BOOTTIME` ``start`` is on; `nil` in replay.
    public var boot: BootID?
    /// The session's start on that clock.
    public var start: Duration
    /// Whether the session's dates came from a true wall clock. When not, they are what the
    /// clock said, and the session waits for a true one before it is uploaded.
    public var datesAreTrue: Bool

    public init(boot: BootID?, start: Duration, datesAreTrue: Bool) {
        self.boot = boot
        self.start = start
        self.datesAreTrue = datesAreTrue
    }
}
