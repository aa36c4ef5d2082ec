import Synchronization

/// Monotonic time a test moves by hand, with sleeps that end only when it does: the upload
/// scheduler's `now` and `sleep`, so a 30 s `Retry-After` is tested without waiting 30 s, and
/// "not retried before 30 s" is a fact about the scheduler's deadlines, not about a machine's
/// speed.
final class ManualTimeline: Sendable {
    private struct Sleeper {
        var id: Int
        var deadline: Duration
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Duration = .zero
        var sleepers: [Sleeper] = []
        var sleeps = 0
        var nextID = 0
    }

    private let state = Mutex(State())

    func now() -> Duration { state.withLock { $0.now } }

    /// How many sleeps were asked for so far.
    var sleeps: Int { state.withLock { $0.sleeps } }

    /// The earliest deadline of a sleep in progress, if any.
    var nextDeadline: Duration? { state.withLock { $0.sleepers.map(\.deadline).min() } }

    func sleep(_ duration: Duration) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            state.sleeps += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Bool = state.withLock { state in
                    if Task.isCancelled { return true }
                    let deadline = state.now + duration
                    if deadline <= state.now { return true }
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

    /// Moves time on by `interval` and ends the sleeps that are due.
    func advance(_ interval: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now += interval
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
