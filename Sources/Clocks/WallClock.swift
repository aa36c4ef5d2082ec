public import CivilTime

/// Where a module reads the wall clock: injected, so a test ages a cache, expires a token or
/// stamps an envelope without sleeping, and replay runs on a capture's time.
///
/// The one way to read the date. A daemon's sessions take theirs from the clock judged true
/// (`DaemonClock`, contract §5); timers and sleeps use Swift's `Clock` (the daemon's
/// `EventLoopClock`, the tests' `ManualClock`), never this.
public struct WallClock: Sendable {
    public let now: @Sendable () -> UTCTime

    public init(now: @escaping @Sendable () -> UTCTime) {
        self.now = now
    }

    /// The system's real-time clock (`CLOCK_REALTIME`), to the millisecond.
    public static let system = WallClock {
        UTCTime(millisecondsSince1970: SystemClocks.realtime().milliseconds)
    }

    /// A clock that always reads `time`.
    public static func fixed(_ time: UTCTime) -> WallClock {
        WallClock { time }
    }
}
