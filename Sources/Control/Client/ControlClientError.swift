import ProcessOutput
import LocalSocket
/// Why a request got no answer from the daemon, as one line.
package enum ControlClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No socket file, or one nobody answers on: the daemon is not running. The CLI falls back
    /// to doing the job itself.
    case noDaemon(path: String)
    case permissionDenied(path: String)
    case timedOut(path: String, after: Duration)
    /// The daemon closed the connection without a whole answer.
    case closedWithoutAnswer(path: String)
    /// The daemon answered something that is not an answer.
    case badAnswer(path: String, reason: String)
    case pathTooLong(path: String)
    case system(operation: String, path: String, errno: Int32)

    /// Whether the daemon is simply not there, so a standalone path should be taken.
    package var isNoDaemon: Bool {
        if case .noDaemon = self { true } else { false }
    }

    package var description: String {
        switch self {
        case .noDaemon(let path):
            "no daemon is listening on \(path) (is the daemon, ftms-bridged, started?)"
        case .permissionDenied(let path):
            "permission denied on \(path): the control socket is for the daemon's user only (try sudo -u ftms-bridge)"
        case .timedOut(let path, let after):
            "no answer on \(path) within \(after)"
        case .closedWithoutAnswer(let path):
            "the daemon closed \(path) without answering"
        case .badAnswer(let path, let reason):
            "the answer on \(path) is not a control answer: \(reason)"
        case .pathTooLong(let path):
            "control socket path \(path) is longer than the \(UnixSocketAddress.maximumPathLength) bytes a Unix socket path takes"
        case .system(let operation, let path, let code):
            "cannot \(operation) \(path): \(errnoText(code))"
        }
    }
}
