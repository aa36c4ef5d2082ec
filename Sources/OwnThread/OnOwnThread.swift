import Foundation

/// Runs blocking work (an HCI command, `poll` on a socket, `waitpid`, a blocking read) on a
/// thread of its own and suspends until it is done.
///
/// On Swift's cooperative pool the work would hold one of its threads, two on a 2-core box,
/// and with them the very handlers it may be waiting for. A thread per call, not NIO's
/// `NIOThreadPool`: that pool's fixed threads (one per core as a singleton) would queue one
/// call behind another that blocks until its deadline, so a doctor probe would miss its
/// own deadline waiting for a turn, and parallel tests would wait on each other's reads.
public func onOwnThread<T: Sendable, Failure: Error>(
    _ work: @escaping @Sendable () throws(Failure) -> T
) async throws(Failure) -> T {
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, Failure>, Never>) in
        let thread = Thread {
            do throws(Failure) {
                continuation.resume(returning: .success(try work()))
            } catch {
                continuation.resume(returning: .failure(error))
            }
        }
        thread.name = "ftms-bridge blocking call"
        thread.stackSize = 1 << 20
        thread.start()
    }
    return try result.get()
}
