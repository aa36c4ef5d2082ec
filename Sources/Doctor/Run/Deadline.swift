import Synchronization

/// Runs `body`, but returns `onTimeout()` if it has not finished within `limit`.
///
/// Unlike a task group, this does not wait for `body` once the time is up: some probes sit in
/// calls that cancellation cannot interrupt (libdbus connecting, an HCI command), and the
/// doctor must answer anyway. Such a probe is left to finish in the background; its result is
/// dropped.
func withDeadline<T: Sendable>(
    _ limit: Duration, onTimeout: @escaping @Sendable () -> T, _ body: @escaping @Sendable () async -> T
) async -> T {
    let slot = Mutex<CheckedContinuation<T, Never>?>(nil)
    let finish: @Sendable (T) -> Void = { value in
        slot.withLock { continuation in
            continuation?.resume(returning: value)
            continuation = nil
        }
    }
    return await withCheckedContinuation { continuation in
        slot.withLock { $0 = continuation }
        let timer = Task {
            try? await Task.sleep(for: limit)
            if !Task.isCancelled { finish(onTimeout()) }
        }
        Task {
            let value = await body()
            timer.cancel()
            finish(value)
        }
    }
}
