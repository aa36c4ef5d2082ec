#if canImport(Glibc)
import ProcessOutput
import Glibc
#endif
import LocalSocket

/// Why the metrics socket could not be set up, as one line an operator can act on.
public enum SocketError: Error, Sendable, Equatable, CustomStringConvertible {
    case alreadyListening(path: String)
    case notASocket(path: String)
    case noSuchGroup(String)
    case pathTooLong(path: String, limit: Int)
    case system(operation: String, path: String, errno: Int32)

    public var description: String {
        switch self {
        case .alreadyListening(let path):
            "another daemon is already listening on \(path) (is another ftms-bridge running?)"
        case .notASocket(let path):
            "\(path) exists and is not a socket; refusing to replace it"
        case .noSuchGroup(let name):
            "group '\(name)' does not exist (create it, e.g. groupadd \(name), or configure another)"
        case .pathTooLong(let path, let limit):
            "socket path \(path) is longer than \(limit) bytes (a Unix socket address holds 107, and binding uses 10 more)"
        case .system(let operation, let path, let code):
            "cannot \(operation) \(path): \(errnoText(code))"
        }
    }
}

extension SocketError {
    init(_ error: SocketPlacementError) {
        switch error {
        case .alreadyListening(let path): self = .alreadyListening(path: path)
        case .notASocket(let path): self = .notASocket(path: path)
        case .pathTooLong(let path, let limit): self = .pathTooLong(path: path, limit: limit)
        case .noFileName(let path): self = .system(operation: "place a socket at", path: path, errno: EISDIR)
        case .system(let operation, let path, let code): self = .system(operation: operation, path: path, errno: code)
        }
    }
}
