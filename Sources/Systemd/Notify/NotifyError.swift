#if canImport(Glibc)
import ProcessOutput
import Glibc
#endif

/// Why a notification did not reach systemd, as one line for the log. None of these is fatal:
/// systemd's own state is not the daemon's to repair, so the caller logs and carries on.
package enum NotifyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `$NOTIFY_SOCKET` is neither an absolute path nor `@name` (systemd 254's `vsock:` is not
    /// supported; Debian 12 has systemd 252).
    case unsupportedAddress(String)
    /// The address does not fit in `sockaddr_un.sun_path`.
    case addressTooLong(String, limit: Int)
    /// The states do not fit in one datagram systemd would accept.
    case messageTooLarge(bytes: Int, limit: Int)
    /// The manager's queue is full; the notification was dropped rather than waited on.
    case receiverBusy(String)
    case system(operation: String, address: String, errno: Int32)

    package var description: String {
        switch self {
        case .unsupportedAddress(let value):
            "NOTIFY_SOCKET=\(value) is neither an absolute socket path nor an @abstract name"
        case .addressTooLong(let value, let limit):
            "NOTIFY_SOCKET=\(value) is longer than the \(limit) bytes a Unix socket address holds"
        case .messageTooLarge(let bytes, let limit):
            "notification of \(bytes) bytes is not below systemd's \(limit)-byte limit"
        case .receiverBusy(let address):
            "notification to \(address) dropped: the service manager's queue is full"
        case .system(let operation, let address, let code):
            "cannot \(operation) \(address): \(errnoText(code))"
        }
    }
}
