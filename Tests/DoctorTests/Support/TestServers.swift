import Foundation
import LocalSocket
import Synchronization
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A listening socket served by a thread of its own: each connection gets `greeting` (if
/// any) and is closed, or is held open silent. For the socket and backend checks. The thread
/// owns the descriptor and closes it when it sees the stop, so no caller waits for it.
final class TestListener: @unchecked Sendable {
    let descriptor: Int32
    private let stopped = StopFlag()
    private let thread: Thread

    /// `greeting == nil`: accept and say nothing until stopped.
    private init(descriptor: Int32, greeting: String?) {
        self.descriptor = descriptor
        let stopped = stopped
        thread = Thread {
            var held: [Int32] = []
            while !stopped.isSet {
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 50) > 0 else { continue }
                let client = accept(descriptor, nil, nil)
                guard client >= 0 else { continue }
                guard let greeting else { held.append(client); continue }
                var request = [UInt8](repeating: 0, count: 4096)
                var waiter = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
                if greeting.hasPrefix("HTTP/"), poll(&waiter, 1, 1000) > 0 { _ = read(client, &request, request.count) }
                let bytes = Array(greeting.utf8)
                _ = bytes.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
                close(client)
            }
            held.forEach { close($0) }
            close(descriptor)
        }
        thread.start()
    }

    /// A Unix socket at `path`.
    static func unix(_ path: String, greeting: String?, mode: UInt32 = 0o660) throws -> TestListener {
        let descriptor = try boundUnix(path)
        chmod(path, mode_t(mode))
        return TestListener(descriptor: descriptor, greeting: greeting)
    }

    /// A Unix socket file nobody listens on: what a daemon that died leaves.
    static func staleUnix(_ path: String) throws {
        close(try boundUnix(path))
    }

    /// An HTTP server on loopback answering every request with `status` and `body`.
    static func http(status: Int, body: String) throws -> (listener: TestListener, url: String) {
        let (descriptor, port) = try boundTCP()
        let response = "HTTP/1.1 \(status) Whatever\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        return (TestListener(descriptor: descriptor, greeting: response), "http://127.0.0.1:\(port)")
    }

    /// A loopback port with nothing listening on it.
    static func closedPort() throws -> Int {
        let (descriptor, port) = try boundTCP()
        close(descriptor)
        return port
    }

    /// The thread stops within its next 50 ms poll and closes the socket.
    func stop() {
        stopped.set()
    }

    private static func boundUnix(_ path: String) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let bound = UnixSocketAddress.with(path: path) { bind(descriptor, $0, $1) }
        guard bound == 0, listen(descriptor, 8) == 0 else { throw TestServerError(description: "cannot listen on \(path)") }
        return descriptor
    }

    private static func boundTCP() throws -> (Int32, Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let (bound, port) = LoopbackAddress.with { bind(descriptor, $0, $1.pointee) == 0 && listen(descriptor, 8) == 0 && getsockname(descriptor, $0, $1) == 0 }
        guard bound else { throw TestServerError(description: "cannot listen on loopback") }
        return (descriptor, Int(port))
    }
}

/// Shared between a listener and its thread.
final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .acquiring) }
    func set() { flag.store(true, ordering: .releasing) }
}

struct TestServerError: Error, CustomStringConvertible {
    var description: String
}
