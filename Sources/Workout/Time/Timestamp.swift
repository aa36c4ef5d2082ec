/// When an input happened, on both clocks the engine needs.
///
/// Every interval (idle, grace, holds, movement time) is measured on ``monotonic``, a
/// `Duration` since an origin the caller picks (process start live, capture start in
/// replay), so a wall-clock step from NTP cannot stretch or shrink a workout. ``wall`` is read
/// only when a session starts, to label it; the end is the start plus the monotonic elapsed
/// time, which keeps `ended_at − started_at == elapsed` exact.
public struct Timestamp: Sendable, Hashable {
    public var monotonic: Duration
    public var wall: UTCTime

    public init(monotonic: Duration, wall: UTCTime) {
        self.monotonic = monotonic
        self.wall = wall
    }

    /// An instant whose wall clock is `wallOrigin` plus `monotonic`: how replay makes both
    /// clocks from a capture's single time line.
    public init(monotonic: Duration, wallOrigin: UTCTime) {
        self.monotonic = monotonic
        self.wall = wallOrigin.adding(nanoseconds: Nanoseconds.of(monotonic))
    }
}
