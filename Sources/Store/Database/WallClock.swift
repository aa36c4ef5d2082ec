public import Workout

#if canImport(Glibc)
import Glibc
#endif

/// Where the store reads the time it stamps rows with (token expiry, cache age, upload log).
///
/// Injected so tests can age a trainings cache or expire a token without sleeping.
public struct WallClock: Sendable {
    public let now: @Sendable () -> UTCTime

    public init(now: @escaping @Sendable () -> UTCTime) {
        self.now = now
    }

    /// The system's real-time clock.
    public static let system = WallClock {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return UTCTime(millisecondsSince1970: Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000)
    }
}
