#if canImport(Glibc)
import Glibc
#endif
import ProcessOutput

/// What went wrong on a ``UnixStream``, before the caller says what it means for it.
package enum UnixStreamError: Error, Equatable, Sendable, CustomStringConvertible {
    /// connect(2) failed with this errno (see ``isNothingListening``, ``isPermissionDenied``).
    case cannotConnect(errno: Int32)
    case timedOut
    case pathTooLong
    /// The peer closed before a whole line came; `partial` bytes of one had arrived.
    case closed(partial: Int)
    case lineTooLong(limit: Int)
    case system(operation: String, errno: Int32)

    /// No file, or a file nobody accepts on: nothing runs there.
    package var isNothingListening: Bool {
        if case .cannotConnect(let code) = self { [ENOENT, ENOTDIR, ECONNREFUSED].contains(code) } else { false }
    }

    package var isPermissionDenied: Bool {
        if case .cannotConnect(let code) = self { code == EACCES || code == EPERM } else { false }
    }

    package var description: String {
        switch self {
        case .cannotConnect(let code): "cannot connect: \(errnoText(code))"
        case .timedOut: "timed out"
        case .pathTooLong: "the path is longer than the \(UnixSocketAddress.maximumPathLength) bytes a Unix socket path takes"
        case .closed(partial: 0): "the peer closed the connection"
        case .closed(let partial): "the peer closed the connection in the middle of a line (\(partial) bytes of it)"
        case .lineTooLong(let limit): "a line longer than \(limit) bytes"
        case .system(let operation, let code): "cannot \(operation) the socket: \(errnoText(code))"
        }
    }
}
