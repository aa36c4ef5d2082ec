import Dispatch
import Daemon
import NIOPosix
import Testing

/// The daemon's clock: sleeps end no earlier than asked, cancellation ends them at once, and
/// a deadline already past returns without a timer.
@Suite("Daemon: the event-loop clock")
struct EventLoopClockTests {
    @Test func sleepsAtLeastAsLongAsAsked() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let clock = EventLoopClock(eventLoop: group.next())
        for milliseconds in [1, 20, 80] {
            let started = ContinuousClock.now
            try await clock.sleep(for: .milliseconds(milliseconds))
            let slept = ContinuousClock.now - started
            #expect(slept >= .milliseconds(milliseconds))
        }
        try await group.shutdownGracefully()
    }

    /// A deadline already past returns without a timer: it returns while the loop, held by a
    /// task that waits for the test, could not run one (a sleep that needed a timer would wait
    /// for the loop, and the group's timeout would name this test).
    @Test func aDeadlineAlreadyPastNeedsNoTimer() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let clock = EventLoopClock(eventLoop: loop)
        let release = DispatchSemaphore(value: 0)
        let held = loop.submit { release.wait() }
        try await clock.sleep(until: ContinuousClock.now - .seconds(1))
        release.signal()
        try await held.get()
        try await group.shutdownGracefully()
    }

    @Test func cancellationEndsASleepAtOnceWithCancellationError() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let clock = EventLoopClock(eventLoop: group.next())
        let sleeper = Task { () -> (any Error)? in
            do {
                try await clock.sleep(for: .seconds(3600))
                return nil
            } catch {
                return error
            }
        }
        try await Task.sleep(for: .milliseconds(20))
        // Only the cancellation can end an hour-long sleep before the group's timeout.
        sleeper.cancel()
        let error = await sleeper.value
        #expect(error is CancellationError)
        // Cancelled before it started: no hour-long wait either.
        let early = Task { () -> Bool in
            withUnsafeCurrentTask { $0?.cancel() }
            return (try? await clock.sleep(for: .seconds(3600))) == nil
        }
        #expect(await early.value)
        try await group.shutdownGracefully()
    }
}
