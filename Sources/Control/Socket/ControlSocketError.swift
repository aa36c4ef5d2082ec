import ProcessOutput
import LocalSocket

/// Why the control socket could not be set up, as one line an operator can act on.
package enum ControlSocketError: Error, Sendable, Equatable, CustomStringConvertible {
    case alreadyListening(path: String)
    case notASocket(path: String)
    case pathTooLong(path: String, limit: Int)
    case badConfiguration(String)
    case system(operation: String, path: String, errno: Int32)

    package var description: String {
        switch self {
        case .alreadyListening(let path):
            "another daemon is already answering on \(path) (is another ftms-bridge running?)"
        case .notASocket(let path):
            "\(path) exists and is not a socket; refusing to replace it"
        case .pathTooLong(let path, let limit):
            "control socket path \(path) is longer than \(limit) bytes (a Unix socket address holds 107, and binding uses 10 more)"
        case .badConfiguration(let reason):
            "control socket: \(reason)"
        case .system(let operation, let path, let code):
            "cannot \(operation) \(path): \(errnoText(code))"
        }
    }
}

extension ControlSocketError {
    init(_ error: SocketPlacementError) {
        switch error {
        case .alreadyListening(let path): self = .alreadyListening(path: path)
        case .notASocket(let path): self = .notASocket(path: path)
        case .pathTooLong(let path, let limit): self = .pathTooLong(path: path, limit: limit)
        case .noFileName(let path): self = .badConfiguration("the socket path \(path) names no file")
        case .system(let operation, let path, let code): self = .system(operation: operation, path: path, errno: code)
        }
    }
}
