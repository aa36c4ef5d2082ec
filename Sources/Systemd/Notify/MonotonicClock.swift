#if canImport(Glibc)
import Glibc
#endif

/// `CLOCK_MONOTONIC` in microseconds, the clock systemd compares `MONOTONIC_USEC=` with.
/// Swift's `ContinuousClock` is `CLOCK_BOOTTIME` on Linux, which runs on through suspend, so
/// it is not the one to use here.
package enum MonotonicClock {
    package static func microseconds() -> UInt64 {
        var now = timespec()
        guard clock_gettime(CLOCK_MONOTONIC, &now) == 0 else { return 0 }
        return UInt64(now.tv_sec) &* 1_000_000 &+ UInt64(now.tv_nsec / 1000)
    }
}
