/// When an input happened, on both clocks the engine needs, and what the wall clock is worth.
///
/// Every interval (idle, grace, holds, movement time) is measured on ``monotonic``, a
/// `Duration` since an origin the caller picks (the boot, `CLOCK_BOOTTIME`, live; capture start
/// in replay), so a wall-clock step from NTP cannot stretch or shrink a workout. A session's
/// dates are its monotonic span placed on the wall clock by the offset between the two
/// (``wallOffset``) at an instant whose wall clock is true (``wallIsTrue``): a session that
/// began while the clock was wrong (a box without a real-time clock boots at 2000 until NTP
/// steps it) is dated again when a true instant arrives, and its end is its start plus the
/// monotonic elapsed time, which keeps `ended_at − started_at == elapsed` exact.
public struct Timestamp: Sendable, Hashable {
    public var monotonic: Duration
    public var wall: UTCTime
    /// Whether ``wall`` is a true date: the daemon's judgement of the system clock (synchronised,
    /// or seen to step to a plausible time); a capture's own dates in replay.
    public var wallIsTrue: Bool
    /// The boot ``monotonic`` counts from when it is the system's `CLOCK_BOOTTIME`; `nil` for a
    /// capture's time line or any clock two processes do not share.
    public var boot: BootID?

    public init(monotonic: Duration, wall: UTCTime, wallIsTrue: Bool = true, boot: BootID? = nil) {
        self.monotonic = monotonic
        self.wall = wall
        self.wallIsTrue = wallIsTrue
        self.boot = boot
    }

    /// An instant whose wall clock is `wallOrigin` plus `monotonic`: how replay makes both
    /// clocks from a capture's single time line.
    public init(monotonic: Duration, wallOrigin: UTCTime) {
        self.monotonic = monotonic
        self.wall = wallOrigin.adding(nanoseconds: Nanoseconds.of(monotonic))
        wallIsTrue = true
        boot = nil
    }

    /// Wall minus monotonic, in milliseconds: the wall-clock time of the monotonic origin. Constant
    /// while neither clock steps, so an instant of the monotonic clock is dated by adding it.
    public var wallOffset: Int64 {
        Nanoseconds.subtract(wall.millisecondsSince1970, Nanoseconds.of(monotonic) / Nanoseconds.perMillisecond)
    }
}
