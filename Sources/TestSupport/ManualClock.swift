import Synchronization

/// Wall-clock time a test sets and moves by hand, in seconds since 1970, so expiry, ages and
/// time stamps are tested without sleeping.
///
/// Each module reads the wall clock its own way (the store through a `WallClock`, the metrics
/// server through a `UnixClock` closure, the reference backend through a `BackendClock`);
/// ``read`` fits the closures, and a test target adds the one conformance it needs.
public final class ManualClock: Sendable {
    private let seconds: Mutex<Double>

    /// 2025-12-24T08:00:00Z unless a test needs another start.
    public init(_ start: Double = 1_766_563_200) {
        seconds = Mutex(start)
    }

    public func now() -> Double { seconds.withLock { $0 } }

    public func set(_ value: Double) {
        seconds.withLock { $0 = value }
    }

    public func advance(_ interval: Double) {
        seconds.withLock { $0 += interval }
    }

    /// ``now()`` as a closure, for an initialiser that takes one.
    public var read: @Sendable () -> Double { { self.now() } }
}
