import Clocks

#if canImport(Glibc)
import Glibc
#endif
package import NIOCore

/// A connected `AF_UNIX` stream socket whose every wait is bounded by a deadline, through
/// poll(2): the one blocking client of the daemon's local sockets (the CLI's control requests, `monitor`,
/// the doctor's probes, the test support's wait for a socket). Plain blocking POSIX rather
/// than a NIO channel: a command sends one request and waits for one line, and needs no event
/// loop for it; the lines are cut by the sockets' own ``LineFramer``.
package struct UnixStream: ~Copyable {
    private let descriptor: Int32
    private let lines: NIOSingleStepByteToMessageProcessor<LineFramer>
    /// Lines read past the last one returned.
    private var pending = CircularBuffer<ByteBuffer>()

    private init(descriptor: Int32, lineLimit: Int) {
        self.descriptor = descriptor
        lines = NIOSingleStepByteToMessageProcessor(LineFramer(limit: lineLimit))
    }

    deinit {
        close(descriptor)
    }

    /// Connects to `path`. A listener whose accept backlog is full answers EAGAIN at once
    /// (Unix sockets have no connect in progress); that is retried until the deadline, and
    /// with a deadline already passed, reported as ``UnixStreamError/timedOut`` at once.
    /// Lines longer than `lineLimit` bytes end ``readLine(deadline:)`` with an error.
    package static func connect(
        to path: String, deadline: ContinuousClock.Instant, lineLimit: Int = 4 << 20
    ) throws(UnixStreamError) -> UnixStream {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .system(operation: "create a socket for", errno: errno) }
        let stream = UnixStream(descriptor: descriptor, lineLimit: lineLimit)
        while true {
            guard let result = UnixSocketAddress.with(path: path, { Glibc.connect(descriptor, $0, $1) }) else { throw .pathTooLong }
            if result == 0 { return stream }
            switch errno {
            case EINTR:
                continue
            case EAGAIN:
                guard ContinuousClock.now < deadline else { throw .timedOut }
                usleep(2_000)
            case let code:
                throw .cannotConnect(errno: code)
            }
        }
    }

    /// Writes all of `bytes`, waiting for room until the deadline.
    package func send(_ bytes: [UInt8], deadline: ContinuousClock.Instant) throws(UnixStreamError) {
        var offset = 0
        while offset < bytes.count {
            // MSG_NOSIGNAL: a peer closing on us must not kill the process with SIGPIPE.
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

    /// The next line the peer sends, without its newline (or `\r\n`); nil `deadline` waits
    /// as long as the peer keeps the connection open.
    package mutating func readLine(deadline: ContinuousClock.Instant?) throws(UnixStreamError) -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            if let line = pending.popFirst() { return Array(line.readableBytesView) }
            let received = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if received > 0 {
                try frame(ByteBuffer(bytes: chunk[..<received]))
                continue
            }
            if received == 0 { throw .closed(partial: lines.unprocessedBytes) }
            switch errno {
            case EINTR: continue
            case EAGAIN: try wait(for: Int16(POLLIN), until: deadline)
            case ECONNRESET: throw .closed(partial: lines.unprocessedBytes)
            case let code: throw .system(operation: "read from", errno: code)
            }
        }
    }

    /// Tells the peer nothing more will be sent (it still answers what it has).
    package func shutdownWrite() {
        shutdown(descriptor, Int32(SHUT_WR))
    }

    private mutating func frame(_ bytes: ByteBuffer) throws(UnixStreamError) {
        do {
            try lines.process(buffer: bytes) { pending.append($0) }
        } catch let error as LineTooLong {
            throw .lineTooLong(limit: error.limit)
        } catch {
            throw .system(operation: "read from", errno: EPROTO)
        }
    }

    private func wait(for events: Int16, until deadline: ContinuousClock.Instant?) throws(UnixStreamError) {
        while true {
            var milliseconds: Int32 = -1
            if let deadline {
                let remaining = ContinuousClock.now.duration(to: deadline)
                guard remaining > .zero else { throw .timedOut }
                milliseconds = Int32(clamping: remaining.milliseconds + 1)
            }
            var request = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&request, 1, milliseconds)
            if ready > 0 { return }
            if ready < 0, errno != EINTR { throw .system(operation: "wait on", errno: errno) }
        }
    }
}
