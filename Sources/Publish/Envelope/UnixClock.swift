#if canImport(Glibc)
import Glibc
#endif

/// Wall-clock time as Unix seconds, the envelope's `timestamp`. Injected so the envelope's
/// bytes are testable and replay can run on capture time.
public typealias UnixClock = @Sendable () -> Double

/// The system's real-time clock, for the daemon.
public func systemUnixClock() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
