import CDBus

#if canImport(Glibc)
import Glibc
#endif

/// A datagram socket that a bus peer handed over (BlueZ's AcquireNotify: one end of a
/// `SOCK_SEQPACKET` socketpair, one datagram per notification), read on the connection's own
/// ``BusLoop`` thread: the default reader, for a connection made without a ``DatagramReader``
/// (the daemon gives its connection one that reads on its event loop instead).
///
/// Why the bus thread by default: the descriptor arrives there, in a
/// method reply; that thread already sleeps in `poll` on the bus socket, so one more
/// descriptor costs no extra thread, no extra wake-up and no dependency of the binding on
/// SwiftNIO; and a hang-up is then seen on the same thread, in order, with the bus signals
/// about the same disconnect. A datagram is handed to `onDatagram` right there, with no
/// copy into a ``DBusMessage`` and no trip through the object cache.
///
/// Loop thread only, except `descriptor`, which never changes.
final class DatagramSocket: @unchecked Sendable {
    let descriptor: Int32
    private var buffer: [UInt8]
    private let onDatagram: @Sendable ([UInt8]) -> Void
    private let onEnd: @Sendable (String) -> Void
    private var open = true

    init(descriptor: Int32, maximumSize: Int, onDatagram: @escaping @Sendable ([UInt8]) -> Void, onEnd: @escaping @Sendable (String) -> Void) {
        self.descriptor = descriptor
        // A notification is at most MTU - 3 bytes; one spare byte shows a longer one as truncated.
        buffer = [UInt8](repeating: 0, count: max(maximumSize, 1) + 1)
        self.onDatagram = onDatagram
        self.onEnd = onEnd
    }

    /// Reads what is queued. False when the socket ended (hang-up, error) and was closed.
    func readable(hangUp: Bool) -> Bool {
        // Bounded, so one chatty socket cannot starve the bus.
        for _ in 0..<64 {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count > 0 {
                onDatagram(Array(buffer[0..<min(count, buffer.count - 1)]))
                continue
            }
            if count == 0 {
                // SEQPACKET: 0 is an empty datagram or the end; only a hang-up tells them apart.
                // A peer that sent more after an empty datagram and then hung up has those still
                // queued: then the 0 was a datagram, and they are read before the end.
                if hangUp || peerHungUp(descriptor), queuedBytes(descriptor) == 0 {
                    close(reason: "the peer hung up")
                    return false
                }
                onDatagram([])
                continue
            }
            switch errno {
            case EAGAIN, EWOULDBLOCK:
                if hangUp {
                    close(reason: "the peer hung up")
                    return false
                }
                return true
            case EINTR:
                continue
            default:
                close(reason: "read failed (errno \(errno))")
                return false
            }
        }
        return true
    }

    /// Closes the descriptor once and says why (the owner then re-subscribes or gives up).
    /// True when it was still open.
    @discardableResult
    func close(reason: String) -> Bool {
        guard open else { return false }
        open = false
        _ = Glibc.close(descriptor)
        onEnd(reason)
        return true
    }
}

/// Whether the peer of a socket hung up or shut its side (`POLLHUP`, `POLLERR`, `POLLNVAL`, or
/// `POLLRDHUP`: every later read is 0 bytes). With ``queuedBytes(_:)``, what tells a SEQPACKET
/// socket's end from an empty datagram. For ``DatagramReader``s too.
public func peerHungUp(_ descriptor: Int32) -> Bool {
    let rdHangUp = Int16(0x2000)  // POLLRDHUP, which Glibc's module does not export
    var probe = pollfd(fd: descriptor, events: Int16(POLLIN) | rdHangUp, revents: 0)
    return poll(&probe, 1, 0) > 0 && probe.revents & (Int16(POLLHUP | POLLERR | POLLNVAL) | rdHangUp) != 0
}

/// Bytes queued to read on a socket (`SIOCINQ`: on a SEQPACKET socket, the sum over every
/// queued datagram). After a hang-up, a 0-byte read with bytes still queued was an empty
/// datagram, not the end. For ``DatagramReader``s too.
public func queuedBytes(_ descriptor: Int32) -> Int32 {
    var count: Int32 = 0
    return ioctl(descriptor, UInt(FIONREAD), &count) == 0 ? count : 0
}

/// A socket being read (on the bus thread or by a ``DatagramReader``); ``close()`` stops
/// reading and closes it, which is how a client gives an acquired notification socket back to
/// BlueZ.
public final class DatagramSubscription: Sendable {
    private let stop: @Sendable (_ done: @escaping @Sendable (_ closed: Bool) -> Void) -> Void

    /// A subscription that `stop` ends: it must stop reading, close every copy of the
    /// descriptor the reader holds, call the reader's `onEnd("cancelled")` if the socket had
    /// not ended yet, and then call `done` once: true when it closed an open socket, false
    /// when the socket had already ended (hung up, failed, or closed before).
    public init(close stop: @escaping @Sendable (_ done: @escaping @Sendable (_ closed: Bool) -> Void) -> Void) {
        self.stop = stop
    }

    init(socket: DatagramSocket, loop: BusLoop) {
        stop = { [loop, socket] done in
            loop.post {
                // The number may already belong to a newer socket if this one ended before.
                if loop.datagramSockets[socket.descriptor] === socket { loop.datagramSockets[socket.descriptor] = nil }
                done(socket.close(reason: "cancelled"))
            }
        }
    }

    /// Stops reading and closes the socket, and returns once no descriptor of it is left open
    /// in this process, so the peer already has its hang-up: BlueZ 5.66 must see an acquired
    /// socket's hang-up before its client disconnects the device or leaves the bus
    /// (docs/bluez.md "Giving acquired sockets back"). True when this closed an open socket,
    /// false when it had ended before (the peer hung up, say). Safe to call more than once.
    @discardableResult
    public func close() async -> Bool {
        await withCheckedContinuation { continuation in
            stop { closed in continuation.resume(returning: closed) }
        }
    }
}

/// Reads handed-over datagram sockets somewhere other than the bus thread.
///
/// The bus thread is the default reader because the descriptor arrives there and the
/// binding needs nothing else; but then every notification wakes two threads: the bus thread
/// to read it and the caller's to handle it. The daemon passes a reader that registers the
/// socket with its own event loop, the thread that handles the notification anyway, so one
/// wake-up does both. A protocol, so that this module does not depend on SwiftNIO.
public protocol DatagramReader: Sendable {
    /// Takes `descriptor` (non-blocking; the reader owns and closes it) and reads it: each
    /// datagram to `onDatagram`, in order, cut to `maximumSize` bytes; an empty datagram is an
    /// empty array, not the end (SEQPACKET reads 0 bytes for both; only a hang-up is the end).
    /// `onEnd` runs once, with a one-line reason, when the peer hangs up, a read fails, or the
    /// subscription is closed (then the reason is `"cancelled"`). Neither may block.
    func read(
        descriptor: Int32, maximumSize: Int,
        onDatagram: @escaping @Sendable ([UInt8]) -> Void, onEnd: @escaping @Sendable (String) -> Void
    ) -> DatagramSubscription
}

extension DBusConnection {
    /// Reads `descriptor` (taken from the value, so this connection owns and closes it): by
    /// the connection's ``DatagramReader`` if it has one, else on the bus thread. Each
    /// datagram goes to `onDatagram`, in order; `onEnd` runs once when the socket hangs up,
    /// fails, is closed (``DatagramSubscription/close()``), or (bus thread) the connection
    /// closes. Both must be quick and must not block (they run on the reading thread);
    /// yielding into an `AsyncStream` is.
    /// `nil` when the descriptor was already taken.
    public func readDatagrams(
        from descriptor: DBusFileDescriptor, maximumSize: Int,
        onDatagram: @escaping @Sendable ([UInt8]) -> Void, onEnd: @escaping @Sendable (String) -> Void
    ) -> DatagramSubscription? {
        guard let raw = descriptor.take() else { return nil }
        let flags = fcntl(raw, F_GETFL)
        _ = fcntl(raw, F_SETFL, flags | O_NONBLOCK)
        if let datagramReader {
            return datagramReader.read(descriptor: raw, maximumSize: maximumSize, onDatagram: onDatagram, onEnd: onEnd)
        }
        let socket = DatagramSocket(descriptor: raw, maximumSize: maximumSize, onDatagram: onDatagram, onEnd: onEnd)
        loop.post { [loop] in
            guard loop.connection != nil else {
                socket.close(reason: "the bus connection closed")
                return
            }
            loop.datagramSockets[raw] = socket
        }
        return DatagramSubscription(socket: socket, loop: loop)
    }
}
