import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Runs `body` to its end, or until SIGINT or SIGTERM; a signal cancels `body`, waits for it to
/// wind down, and then ends the process by that same signal, as it would have ended without
/// the handler (a shell sees 130 or 143).
///
/// Why not let the signal kill the process at once: a Bluetooth command holds BlueZ
/// resources that have to go back in order. Killed, the process drops its bus connection
/// before the kernel gets to its acquired notification sockets, and bluetoothd 5.66 crashes
/// when a client leaves the bus while it still holds such a socket (docs/bluez.md "Giving
/// acquired sockets back"). Cancelled, a command's link closes its sockets, lets bluetoothd
/// see the hang-ups, disconnects, and only then does the bus connection go.
func untilStopSignal(_ body: @escaping @Sendable () async throws -> Void) async throws {
    let received = Mutex<Int32?>(nil)
    let work = Task { try await body() }
    let sources = [SIGINT, SIGTERM].map { number in
        // libdispatch delivers the signal to the source; ignored, it no longer kills.
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler {
            received.withLock { $0 = $0 ?? number }
            work.cancel()
        }
        source.resume()
        return source
    }
    let result = await work.result
    for source in sources { source.cancel() }
    if let number = received.withLock({ $0 }) {
        signal(number, SIG_DFL)
        raise(number)
        // Only if the signal is blocked in this thread: the status a shell would show.
        exit(128 + number)
    }
    try result.get()
}
