import Synchronization

/// The first of an operation or a timeout: `operation`'s result, or `nil` once `timeout` has
/// passed on `clock`, and the operation is then cancelled.
///
/// It answers as soon as the first of the two is in and does not wait for the other to end,
/// as a task group would: some operations sit in calls that cancellation cannot interrupt
/// (libdbus connecting, an HCI command, a stalled body read), and the doctor, the start-up
/// token check and an upload must answer by their deadline anyway. Such an operation runs on
/// in the background; its result is dropped. Cancelling the caller cancels the operation, and
/// the answer is still in by the timeout at the latest.
///
/// The clock is injected (the daemon's event-loop timers, a test's manual clock).
public func withTimeout<T: Sendable, Failure: Error>(
    _ timeout: Duration, on clock: some Clock<Duration> = ContinuousClock(),
    _ operation: @escaping @Sendable () async throws(Failure) -> T
) async throws(Failure) -> T? {
    let first = FirstAnswer<Result<T?, Failure>>()
    let work = Task {
        do throws(Failure) {
            first.give(.success(try await operation()))
        } catch {
            first.give(.failure(error))
        }
    }
    let timer = Task {
        try? await clock.sleep(for: timeout)
        first.give(.success(nil))
    }
    let answer = await withTaskCancellationHandler {
        await first.value
    } onCancel: {
        work.cancel()
    }
    work.cancel()
    timer.cancel()
    return try answer.get()
}

/// One answer, the first given; later ones are dropped.
private final class FirstAnswer<Value: Sendable>: Sendable {
    private enum State {
        case waiting(CheckedContinuation<Value, Never>?)
        case answered(Value)
    }

    private let state = Mutex(State.waiting(nil))

    func give(_ value: Value) {
        let waiter = state.withLock { state -> CheckedContinuation<Value, Never>? in
            guard case .waiting(let waiter) = state else { return nil }
            state = .answered(value)
            return waiter
        }
        waiter?.resume(returning: value)
    }

    var value: Value {
        get async {
            await withCheckedContinuation { continuation in
                let answered = state.withLock { state -> Value? in
                    switch state {
                    case .answered(let value):
                        return value
                    case .waiting:
                        state = .waiting(continuation)
                        return nil
                    }
                }
                if let answered { continuation.resume(returning: answered) }
            }
        }
    }
}
