import Clocks
import Synchronization
import TestSupport
import Testing

/// The first of some waits and a timer, on the manual clock: which one wins is decided by the
/// deadlines the test moves, never by how fast the machine is.
@Suite("The first of some waits and a timer", .timeLimit(.minutes(1)))
struct FirstOfTests {
    typealias Gate = WithTimeoutTests.Gate
    typealias Answer = WithTimeoutTests.Answer

    /// Counts the runs of `then`.
    final class Ends: Sendable {
        private let count = Atomic<Int>(0)
        var value: Int { count.load(ordering: .acquiring) }
        func note() { count.add(1, ordering: .releasing) }
    }

    @Test func aWaitThatEndsFirstIsTheAnswerAndTheOthersAndTheTimerEnd() async throws {
        let clock = ManualClock()
        let (first, second) = (Gate(), Gate())
        let ends = Ends()
        let answer = Answer<Int>()
        _ = Task {
            answer.set(await firstOf({ await first.wait(); return 1 }, { await second.wait(); return 2 },
                                     timeout: .seconds(10), on: clock, then: { ends.note() }))
        }
        try await waitUntil("the waits and the timer") { first.started && second.started && clock.nextDeadline == .seconds(10) }
        clock.advance(.seconds(9))
        first.open()
        #expect(try await answer.value() == 1)
        #expect(second.cancelled && !first.cancelled)
        #expect(clock.nextDeadline == nil)
        #expect(ends.value == 1)
    }

    /// The actor's case: a wait on a continuation that cancellation does not resume ends by
    /// `then`, and the answer comes once it has.
    @Test func theTimeoutIsNilAndThenEndsAWaitThatIgnoresCancellation() async throws {
        let clock = ManualClock()
        let gate = Gate()
        let answer = Answer<String>()
        _ = Task {
            answer.set(await firstOf({ await gate.wait(honoursCancellation: false); return "woken" },
                                     timeout: .seconds(3), on: clock, then: { gate.open() }))
        }
        try await waitUntil("the wait and the timer") { gate.started && clock.nextDeadline == .seconds(3) }
        clock.advance(.seconds(3))
        #expect(try await answer.value() == nil)
        #expect(gate.cancelled)
    }

    @Test func withoutATimeoutOnlyAWaitAnswers() async throws {
        let clock = ManualClock()
        let gate = Gate()
        let answer = Answer<Int>()
        _ = Task { answer.set(await firstOf({ await gate.wait(); return 7 }, timeout: nil, on: clock)) }
        try await waitUntil("the wait") { gate.started }
        #expect(clock.nextDeadline == nil)
        gate.open()
        #expect(try await answer.value() == 7)
    }

    /// Cancelling the caller ends the timer at once: the answer is nil without the clock moving.
    @Test func cancellingTheCallerEndsTheTimerAtOnce() async throws {
        let clock = ManualClock()
        let gate = Gate()
        let answer = Answer<String>()
        let call = Task {
            answer.set(await firstOf({ await gate.wait(honoursCancellation: false); return "woken" },
                                     timeout: .seconds(30), on: clock, then: { gate.open() }))
        }
        try await waitUntil("the wait and the timer") { gate.started && clock.nextDeadline != nil }
        call.cancel()
        #expect(try await answer.value() == nil)
        #expect(clock.now == ManualClock.Instant(offset: .zero))
    }
}
