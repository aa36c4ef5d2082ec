#if canImport(Glibc)
import Glibc
#endif
import LocalSocket

/// One datagram to one Unix socket address, on a socket made for it and closed after, as
/// libsystemd does: no descriptor outlives the call, so the notifier stays a plain value and
/// a restarted manager (a new socket at the same address) needs nothing from us.
///
/// The send never waits: the socket is non-blocking and the call passes `MSG_DONTWAIT`, so a
/// manager that is not reading costs one `EAGAIN`, not a stalled daemon. No credentials are
/// attached by hand; the manager's socket has `SO_PASSCRED`, so the kernel adds ours.
enum DatagramSender {
    static func send(_ payload: [UInt8], to address: NotifySocketAddress) throws(NotifyError) {
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw .system(operation: "open a socket for", address: address.description, errno: errno) }
        defer { close(descriptor) }
        let sendTo = { (target: UnsafePointer<sockaddr>, length: socklen_t) in
            payload.withUnsafeBytes { sendto(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT), target, length) }
        }
        var sent: Int
        repeat {
            let attempt = switch address {
            case .path(let path): UnixSocketAddress.with(path: path, sendTo)
            case .abstract(let name): UnixSocketAddress.with(abstractName: name, sendTo)
            }
            // NotifySocketAddress has checked what UnixSocketAddress takes.
            guard let attempt else { throw .addressTooLong(address.description, limit: UnixSocketAddress.maximumPathLength) }
            sent = attempt
        } while sent < 0 && errno == EINTR
        guard sent < 0 else { return }
        switch errno {
        case EAGAIN: throw .receiverBusy(address.description)
        case let code: throw .system(operation: "send a notification to", address: address.description, errno: code)
        }
    }
}
