import ProcessOutput

/// Why a local socket (the control socket, the metrics socket) could not be set up, as one
/// line an operator can act on: the one error of both servers and of ``SocketPlacement``. The
/// daemon says which socket (`control socket PATH: …`).
package enum LocalSocketError: Error, Sendable, Equatable, CustomStringConvertible {
    case alreadyListening(path: String)
    case notASocket(path: String)
    case pathTooLong(path: String, limit: Int)
    case noSuchGroup(String)
    /// A setting the server cannot take; the text names it.
    case badConfiguration(String)
    case system(operation: String, path: String, errno: Int32)

    package var description: String {
        switch self {
        case .alreadyListening(let path):
            "another daemon is already listening on \(path) (is another ftms-bridge running?)"
        case .notASocket(let path):
            "\(path) exists and is not a socket; refusing to replace it"
        case .pathTooLong(let path, let limit):
            "socket path \(path) is longer than \(limit) bytes (a Unix socket path takes \(UnixSocketAddress.maximumPathLength), and binding uses \(UnixSocketAddress.maximumPathLength - limit) more)"
        case .noSuchGroup(let name):
            "group '\(name)' does not exist (create it, e.g. groupadd \(name), or configure another)"
        case .badConfiguration(let reason):
            reason
        case .system(let operation, let path, let code):
            "cannot \(operation) \(path): \(errnoText(code))"
        }
    }
}
