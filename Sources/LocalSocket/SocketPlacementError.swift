/// Why a socket's file could not be placed. Each server words it for its own socket
/// (``SocketPlacement`` is shared, the operator's message is not).
package enum SocketPlacementError: Error, Sendable, Equatable {
    case alreadyListening(path: String)
    case notASocket(path: String)
    case pathTooLong(path: String, limit: Int)
    case noFileName(path: String)
    case system(operation: String, path: String, errno: Int32)
}
