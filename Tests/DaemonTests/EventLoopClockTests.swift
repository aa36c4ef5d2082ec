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
        let started = ContinuousClock.now
        try await clock.sleep(until: started - .seconds(1))
        #expect(ContinuousClock.now - started < .milliseconds(50))
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
        let started = ContinuousClock.now
        sleeper.cancel()
        let error = await sleeper.value
        #expect(error is CancellationError)
        #expect(ContinuousClock.now - started < .seconds(5))
        // Cancelled before it started: no hour-long wait either.
        let early = Task { () -> Bool in
            withUnsafeCurrentTask { $0?.cancel() }
            return (try? await clock.sleep(for: .seconds(3600))) == nil
        }
        #expect(await early.value)
        try await group.shutdownGracefully()
    }
}
