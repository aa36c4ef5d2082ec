import CBluetooth  // owns <sys/socket.h> in this module, since its header includes it first

#if canImport(Glibc)
import Glibc
#endif

/// A plain POSIX client for the daemon's Unix sockets: connect, optionally send one request
/// line, and read the first line back, never waiting past a deadline. Plain sockets rather than NIO: one short exchange does
/// not need an event loop, and the probe must work when everything else is broken.
enum UnixSocketProbe {
    enum Outcome: Sendable, Hashable {
        /// Connected, and the first line came.
        case answered(String)
        /// `connect` failed: the errno.
        case refused(Int32)
        /// Connected, but no complete line in time.
        case silent
    }

    /// The longest first line read (a `hello` carrying many machines is long, but not this long).
    static let lineLimit = 1 << 20

    /// Connects to `path`, sends `request` (one line, when given) and reads one line.
    static func probe(path: String, request: String?, timeout: Duration) async -> Outcome {
        await onOwnThread { run(path: path, request: request, deadline: ContinuousClock.now + timeout) }
    }

    private static func run(path: String, request: String?, deadline: ContinuousClock.Instant) -> Outcome {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        guard pathBytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return .refused(ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { return .refused(errno) }
        defer { close(descriptor) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if connected != 0 {
            guard errno == EINPROGRESS || errno == EAGAIN, wait(descriptor, for: Int16(POLLOUT), until: deadline) else {
                return .refused(errno == 0 ? ETIMEDOUT : errno)
            }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length)
            if error != 0 { return .refused(error) }
        }
        // A peer that already spoke and hung up refuses the request, but its line is still
        // there to read: so a failed send is not the end.
        if let request { _ = send(Array((request + "\n").utf8), on: descriptor, until: deadline) }
        var line: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while line.count < lineLimit {
            guard wait(descriptor, for: Int16(POLLIN), until: deadline) else { return .silent }
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0, errno == EAGAIN || errno == EINTR { continue }
            guard count > 0 else { return .silent }
            if let newline = buffer[0..<count].firstIndex(of: UInt8(ascii: "\n")) {
                line.append(contentsOf: buffer[0..<newline])
                return .answered(String(decoding: line, as: UTF8.self))
            }
            line.append(contentsOf: buffer[0..<count])
        }
        return .silent
    }

    private static func send(_ bytes: [UInt8], on descriptor: Int32, until deadline: ContinuousClock.Instant) -> Bool {
        var offset = 0
        while offset < bytes.count {
            guard wait(descriptor, for: Int16(POLLOUT), until: deadline) else { return false }
            // MSG_NOSIGNAL: a daemon closing on us must not kill the doctor with SIGPIPE.
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0, errno == EAGAIN || errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Polls until `events` or the deadline; false at the deadline or on an error.
    private static func wait(_ descriptor: Int32, for events: Int16, until deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let left = Seconds.milliseconds(deadline - ContinuousClock.now)
            guard left > 0 else { errno = ETIMEDOUT; return false }
            var poller = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&poller, 1, Int32(clamping: left))
            if ready < 0, errno == EINTR { continue }
            if ready == 0 { errno = ETIMEDOUT; return false }
            return ready > 0
        }
    }
}
