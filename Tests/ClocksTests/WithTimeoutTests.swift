import Clocks
import Synchronization
import TestSupport
import Testing

/// The first of an operation or a timeout, on the manual clock: which one wins is decided by
/// the deadlines the test moves, never by how fast the machine is.
@Suite("The first of an operation or a timeout", .timeLimit(.minutes(1)))
struct WithTimeoutTests {
    struct Refused: Error, Equatable {}

    /// An operation that ends when the test lets it, or when it is cancelled, and remembers which.
    final class Gate: Sendable {
        private let state = Mutex<(open: CheckedContinuation<Void, Never>?, cancelled: Bool, started: Bool)>((nil, false, false))
        var cancelled: Bool { state.withLock { $0.cancelled } }
        var started: Bool { state.withLock { $0.started } }

        /// Waits for ``open()``, or for cancellation (noted) when `honoursCancellation`.
        func wait(honoursCancellation: Bool = true) async {
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    state.withLock { state in
                        state.open = continuation
                        state.started = true
                    }
                }
            } onCancel: {
                let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                    state.cancelled = true
                    guard honoursCancellation else { return nil }
                    defer { state.open = nil }
                    return state.open
                }
                waiter?.resume()
            }
        }

        func open() {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.open = nil }
                return state.open
            }
            waiter?.resume()
        }
    }

    /// The answer of a `withTimeout` running in its own task, awaited by a wait that gives up:
    /// an answer that never comes fails the test instead of hanging it.
    final class Answer<T: Sendable>: Sendable {
        private let slot = Mutex<T??>(nil)

        func set(_ value: T?) { slot.withLock { $0 = .some(value) } }

        func value() async throws -> T? {
            try await waitUntil("the answer") { slot.withLock { $0 != nil } }
            return slot.withLock { $0 ?? nil }
        }
    }

    @Test func anOperationThatEndsFirstIsTheAnswerAndEndsTheTimer() async throws {
        let clock = ManualClock()
        let gate = Gate()
        let answer = Answer<Int>()
        _ = Task { answer.set(await withTimeout(.seconds(10), on: clock) { await gate.wait(); return 42 }) }
        try await waitUntil("the operation and the timer") { gate.started && clock.nextDeadline == .seconds(10) }
        clock.advance(.seconds(9))
        gate.open()
        #expect(try await answer.value() == 42)
        try await waitUntil("the timer ended") { clock.nextDeadline == nil }
        #expect(!gate.cancelled)
    }

    @Test func theTimeoutIsNilAndCancelsTheOperation() async throws {
        let clock = ManualClock()
        let gate = Gate()
        let answer = Answer<Int>()
        _ = Task { answer.set(await withTimeout(.seconds(10), on: clock) { await gate.wait(); return 42 }) }
        try await waitUntil("the operation and the timer") { gate.started && clock.nextDeadline == .seconds(10) }
        clock.advance(.seconds(10))
        #expect(try await answer.value() == nil)
        try await waitUntil("the operation cancelled") { gate.cancelled }
    }

    /// The doctor's case: a probe stuck in a call that cancellation cannot interrupt still
    /// gets its answer by the deadline.
    @Test func anOperationThatIgnoresCancellationDoesNotHoldTheAnswer() async throws {
        let clock = ManualClock()
        let gate = Gate()
        let answer = Answer<String>()
        _ = Task { answer.set(await withTimeout(.seconds(3), on: clock) { await gate.wait(honoursCancellation: false); return "late" }) }
        try await waitUntil("the operation and the timer") { gate.started && clock.nextDeadline != nil }
        clock.advance(.seconds(3))
        #expect(try await answer.value() == nil)
        #expect(gate.cancelled)
        gate.open()
    }

    @Test func anOperationsErrorIsThrown() async throws {
        let clock = ManualClock()
        await #expect(throws: Refused.self) {
            _ = try await withTimeout(.seconds(10), on: clock) { () async throws(Refused) -> Int in throw Refused() }
        }
        #expect(clock.now == ManualClock.Instant(offset: .zero))
    }

    /// Cancelling the caller cancels the operation, whose answer to it is the answer; the
    /// timer still bounds it.
    @Test func cancellingTheCallerCancelsTheOperation() async throws {
        let clock = ManualClock()
        let gate = Gate()
        let answer = Answer<String>()
        let call = Task { answer.set(await withTimeout(.seconds(10), on: clock) { await gate.wait(); return Task.isCancelled ? "cancelled" : "done" }) }
        try await waitUntil("the operation and the timer") { gate.started && clock.nextDeadline != nil }
        call.cancel()
        #expect(try await answer.value() == "cancelled")
        #expect(gate.cancelled)
    }
}
