import Foundation

/// Runs a blocking system call (an HCI command, `poll` on a socket, `waitpid`) on a thread of
/// its own, so it never holds one of the few threads Swift's concurrency runs on.
func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: work()) }
        thread.name = "ftms-bridge doctor probe"
        thread.start()
    }
}
