#if canImport(Glibc)
import Glibc
#endif

/// Asks whether anyone is listening on a socket file, the way a reader would: by connecting.
package enum SocketProbe {
    package enum Result: Equatable, Sendable {
        case listening
        /// The file is there but nothing accepts: the owner died.
        case stale
        /// The file vanished meanwhile.
        case gone
        case failed(Int32)
    }

    /// Non-blocking, so a live daemon with a full accept backlog answers `EAGAIN` at once
    /// instead of hanging the new daemon's start; that also means "listening".
    package static func connect(_ path: String) -> Result {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return .failed(errno) }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        let bytes = Array(path.utf8)
        guard bytes.count < capacity else { return .failed(ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if result == 0 { return .listening }
        switch errno {
        case EAGAIN, EINPROGRESS: return .listening
        case ECONNREFUSED: return .stale
        case ENOENT: return .gone
        case let code: return .failed(code)
        }
    }
}
