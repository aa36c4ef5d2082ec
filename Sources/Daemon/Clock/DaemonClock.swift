package import Workout
import Store

/// The two times every pipeline input carries: monotonic for durations (immune to NTP steps
/// and an operator's `date -s`), wall for what sessions are dated with. Injected so tests
/// drive the daemon's timers without sleeping.
package struct DaemonClock: Sendable {
    package let now: @Sendable () -> Timestamp

    package init(now: @escaping @Sendable () -> Timestamp) {
        self.now = now
    }

    /// The process's own clocks: monotonic from the moment this is made.
    package static func system() -> DaemonClock {
        let origin = ContinuousClock.now
        let wall = WallClock.system
        return DaemonClock { Timestamp(monotonic: ContinuousClock.now - origin, wall: wall.now()) }
    }
}
