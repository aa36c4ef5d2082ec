/// The first of some waits and a timer: the first wait's result, or `nil` once `timeout` has
/// passed on `clock` (no timer when `timeout` is nil). The others are cancelled, `then` runs,
/// and the call returns once every wait has ended.
///
/// ``withTimeout(_:on:_:)``'s sibling for an actor's own waits: a backoff cut short by a wake,
/// a wait for a free link, a window for retained messages. Those end when cancelled, or when
/// `then` ends them (it resumes the continuations they wait on, which cancellation alone does
/// not), and the caller must not go on while one still runs. `withTimeout` is for an operation
/// that may ignore cancellation and must not delay the answer.
///
/// Cancelling the caller ends the timer at once, so the answer is then `nil` unless a wait
/// answered first.
public func firstOf<T: Sendable>(
    _ waits: (@Sendable () async -> T)..., timeout: Duration?, on clock: some Clock<Duration>,
    then end: @Sendable () async -> Void = {}
) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        for wait in waits {
            group.addTask { await wait() }
        }
        if let timeout {
            group.addTask {
                try? await clock.sleep(for: timeout)
                return nil
            }
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        await end()
        return first
    }
}
