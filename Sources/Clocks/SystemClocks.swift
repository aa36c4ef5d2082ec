#if canImport(Glibc)
import Glibc
#endif

/// The kernel's clocks, read: the one place the product calls `clock_gettime`.
///
/// Swift's own clocks hide their instants' origin (`ContinuousClock` is `CLOCK_BOOTTIME` on
/// Linux, `SuspendingClock` `CLOCK_MONOTONIC`), but a date needs `CLOCK_REALTIME`, the
/// daemon's checkpoints need boottime as a number that means the same across its restarts in
/// one boot, and systemd compares `MONOTONIC_USEC=` with `CLOCK_MONOTONIC`. Each is vDSO: no
/// system call.
public enum SystemClocks {
    /// `CLOCK_REALTIME`: since 1970-01-01T00:00:00Z, as the system's clock has it (it steps).
    public static func realtime() -> Duration { read(CLOCK_REALTIME) }

    /// `CLOCK_BOOTTIME`: since this boot, suspend included.
    public static func boottime() -> Duration { read(CLOCK_BOOTTIME) }

    /// `CLOCK_MONOTONIC`: since this boot, suspend left out.
    public static func monotonic() -> Duration { read(CLOCK_MONOTONIC) }

    /// `CLOCK_MONOTONIC` in whole milliseconds: the deadlines of libdbus's and libmosquitto's
    /// timers, which count in milliseconds.
    public static func monotonicMilliseconds() -> Int64 { monotonic().milliseconds }

    private static func read(_ clock: clockid_t) -> Duration {
        var spec = timespec()
        guard clock_gettime(clock, &spec) == 0 else { return .zero }
        return .seconds(Int64(spec.tv_sec)) + .nanoseconds(Int64(spec.tv_nsec))
    }
}
