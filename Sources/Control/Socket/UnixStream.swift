#if canImport(Glibc)
import Glibc
#endif

/// A connected `AF_UNIX` stream socket whose every wait is bounded by one deadline, through
/// poll(2). Plain blocking POSIX rather than NIO: the CLI sends one request and waits for one
/// line, and needs no event loop for that; the server probes a socket file the same way.
struct UnixStream: ~Copyable {
    private let descriptor: Int32
    /// Bytes read past the last line returned.
    private var pending: [UInt8] = []

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Connects to `path`. A listener whose accept backlog is full answers EAGAIN at once
    /// (Unix sockets have no connect in progress); that is retried until the deadline.
    static func connect(to path: String, deadline: ContinuousClock.Instant) throws(UnixStreamError) -> UnixStream {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .system(operation: "create a socket for", errno: errno) }
        let stream = UnixStream(descriptor: descriptor)
        while true {
            guard let result = UnixSocketAddress.with(path, { Glibc.connect(descriptor, $0, $1) }) else { throw .pathTooLong }
            if result == 0 { return stream }
            switch errno {
            case EINTR:
                continue
            case EAGAIN:
                guard ContinuousClock.now < deadline else { throw .timedOut }
                usleep(2_000)
            case ENOENT, ENOTDIR, ECONNREFUSED:
                throw .nothingListening
            case EACCES, EPERM:
                throw .permissionDenied
            case let code:
                throw .system(operation: "connect to", errno: code)
            }
        }
    }

    func send(_ bytes: [UInt8], deadline: ContinuousClock.Instant) throws(UnixStreamError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent >= 0 {
                offset += sent
                continue
            }
            switch errno {
            case EINTR: continue
            case EAGAIN: try wait(for: Int16(POLLOUT), until: deadline)
            case EPIPE, ECONNRESET: throw .closed(partial: 0)
            case let code: throw .system(operation: "write to", errno: code)
            }
        }
    }

    /// The next line the peer sends, without its newline (or `\r\n`), at most `limit` bytes.
    mutating func readLine(limit: Int, deadline: ContinuousClock.Instant) throws(UnixStreamError) -> [UInt8] {
        var searched = 0
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if let newline = pending[searched...].firstIndex(of: UInt8(ascii: "\n")) {
                var line = Array(pending[..<newline])
                pending.removeFirst(newline + 1)
                guard line.count <= limit else { throw .lineTooLong(limit: limit) }
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                return line
            }
            searched = pending.count
            guard pending.count <= limit else { throw .lineTooLong(limit: limit) }
            let received = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if received > 0 {
                pending += chunk[..<received]
                continue
            }
            if received == 0 { throw .closed(partial: pending.count) }
            switch errno {
            case EINTR: continue
            case EAGAIN: try wait(for: Int16(POLLIN), until: deadline)
            case ECONNRESET: throw .closed(partial: pending.count)
            case let code: throw .system(operation: "read from", errno: code)
            }
        }
    }

    /// Tells the peer nothing more will be sent (it still answers what it has).
    func shutdownWrite() {
        shutdown(descriptor, Int32(SHUT_WR))
    }

    private func wait(for events: Int16, until deadline: ContinuousClock.Instant) throws(UnixStreamError) {
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { throw .timedOut }
            let (seconds, attoseconds) = remaining.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            var request = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&request, 1, milliseconds)
            if ready > 0 { return }
            if ready < 0, errno != EINTR { throw .system(operation: "wait on", errno: errno) }
        }
    }
}
