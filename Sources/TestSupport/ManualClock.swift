public import CivilTime
public import Clocks
import Synchronization

/// Time a test moves by hand: the one manual clock. It is a Swift `Clock` (timers and sleeps
/// end only when the test moves it, so "not retried before 30 s" is a fact about deadlines,
/// not about a machine's speed) and a ``WallClock`` (``wall``: expiry, ages and time stamps,
/// without sleeping).
///
/// Instants count from the moment it was made; the wall clock reads ``init(wall:)``'s date
/// plus the time moved since.
public final class ManualClock: Clock, Sendable {
    public struct Instant: InstantProtocol {
        /// Time moved since the clock was made.
        public var offset: Duration

        public init(offset: Duration) {
            self.offset = offset
        }

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var id: Int
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var sleeps = 0
        var nextID = 0
    }

    private let state = Mutex(State())
    private let wallOrigin: UTCTime

    /// 2025-12-24T08:00:00Z on the wall unless a test needs another date.
    public init(wall: UTCTime = UTCTime(secondsSince1970: 1_766_563_200)) {
        wallOrigin = wall
    }

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// The wall clock: the start date plus the time moved since.
    public var wall: WallClock {
        WallClock { UTCTime(millisecondsSince1970: self.wallOrigin.millisecondsSince1970 + self.now.offset.milliseconds) }
    }

    /// How many sleeps were asked for so far.
    public var sleeps: Int { state.withLock { $0.sleeps } }

    /// The earliest deadline of a sleep in progress, as time since the clock was made.
    public var nextDeadline: Duration? { state.withLock { $0.sleepers.map(\.deadline.offset).min() } }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            state.sleeps += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Bool = state.withLock { state in
                    if Task.isCancelled || deadline <= state.now { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return false
                }
                if resumeNow {
                    if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
                }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time on by `interval` (both clocks) and ends the sleeps that are due.
    public func advance(_ interval: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: interval)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
