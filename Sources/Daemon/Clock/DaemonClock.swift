import Clocks
package import Workout

/// The two times every pipeline input carries: monotonic for durations (immune to NTP steps
/// and an operator's `date -s`), wall for what sessions are dated with, and whether that wall
/// clock is true. Injected so tests drive the daemon's timers without sleeping.
package struct DaemonClock: Sendable {
    package let now: @Sendable () -> Timestamp

    package init(now: @escaping @Sendable () -> Timestamp) {
        self.now = now
    }

    /// The system's clocks as the daemon reads them (``SystemWallClock``): `CLOCK_BOOTTIME`
    /// with the boot's id, and the wall clock judged.
    package static func judged(by clock: SystemWallClock) -> DaemonClock {
        DaemonClock { clock.now() }
    }

    /// The process's own clocks, the wall clock taken as true: for tests and tools that judge
    /// nothing. Monotonic from the moment this is made.
    package static func system() -> DaemonClock {
        let origin = ContinuousClock.now
        let wall = WallClock.system
        return DaemonClock { Timestamp(monotonic: ContinuousClock.now - origin, wall: wall.now()) }
    }
}
