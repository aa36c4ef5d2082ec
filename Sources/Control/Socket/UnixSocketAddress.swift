#if canImport(Glibc)
import Glibc
#endif

/// A filesystem path as a `sockaddr_un`, for connect(2).
enum UnixSocketAddress {
    /// sun_path's size on Linux less its terminating NUL.
    static let maximumPathLength = 107

    /// Calls `body` with the address of `path`, or returns nil when it does not fit.
    static func with<Result>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result? {
        let bytes = Array(path.utf8)
        guard bytes.count <= maximumPathLength, !bytes.contains(0) else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}
