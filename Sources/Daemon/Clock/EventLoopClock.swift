import Clocks
package import NIOCore
import Synchronization

/// A `Clock` whose sleeps are timers on a SwiftNIO event loop.
///
/// Why not `ContinuousClock`: on Linux, `Task.sleep` is a libdispatch timer, serviced by
/// Dispatch's manager thread and a worker per expiry. The daemon's idle budget is one wake-up
/// per second, and libdispatch already spends it: once any global-queue work has run, its
/// manager re-arms a one-second timer for the rest of the process's life (measured on a
/// five-line program: `DispatchQueue.global().async` once, then `sleep(5)`, shows five
/// re-arms). An event loop sleeps in `epoll_wait` until its next scheduled task, so the
/// daemon's own timers add a wake-up only when one is due. Instants are `ContinuousClock`'s,
/// so deadlines mix freely with the rest of the code.
package struct EventLoopClock: Clock {
    package typealias Instant = ContinuousClock.Instant
    package let eventLoop: any EventLoop

    package init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    package var now: Instant { ContinuousClock.now }
    package var minimumResolution: Duration { .microseconds(1) }

    package func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let delay = ContinuousClock.now.duration(to: deadline)
        guard delay > .zero else { return try Task.checkCancellation() }
        let amount = TimeAmount.nanoseconds(delay.nanoseconds)
        let timer = PendingTimer()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let scheduled = eventLoop.scheduleTask(in: amount) {}
                scheduled.futureResult.whenComplete { result in
                    switch result {
                    case .success: continuation.resume()
                    case .failure: continuation.resume(throwing: CancellationError())
                    }
                }
                timer.arm(scheduled)
            }
        } onCancel: {
            timer.cancel()
        }
    }

    /// The scheduled task, and whether cancellation came first (it may, from another thread).
    private final class PendingTimer: Sendable {
        private let state = Mutex<(scheduled: Scheduled<Void>?, cancelled: Bool)>((nil, false))

        func arm(_ scheduled: Scheduled<Void>) {
            let cancelled = state.withLock { state in
                state.scheduled = scheduled
                return state.cancelled
            }
            if cancelled { scheduled.cancel() }
        }

        func cancel() {
            let scheduled = state.withLock { state in
                state.cancelled = true
                return state.scheduled
            }
            scheduled?.cancel()
        }
    }
}
