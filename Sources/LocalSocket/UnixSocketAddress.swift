#if canImport(Glibc)
package import Glibc
#endif
import NIOCore

/// A Unix socket's address: the one place a `sockaddr_un` is made. A filesystem path goes
/// through NIO's `SocketAddress(unixDomainSocketPath:)`, the address every NIO bootstrap binds
/// and connects with, so a path one side takes the other takes too; a name in Linux's abstract
/// namespace (systemd's `NOTIFY_SOCKET` may give one), which NIO does not make, is made here.
package enum UnixSocketAddress {
    /// The longest path NIO takes (`sun_path` less its NUL on the smallest platform it
    /// supports): the limit of every socket path here, bound or connected to.
    package static let maximumPathLength = 103
    /// `sun_path` less the NUL that marks an abstract name.
    package static let maximumAbstractNameLength = 107

    /// Calls `body` with the address of the socket file at `path` and its length; nil when
    /// `path` is none: empty, longer than ``maximumPathLength``, or holding a NUL.
    package static func with<Result>(path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result? {
        guard !path.isEmpty, !path.utf8.contains(0), let address = try? SocketAddress(unixDomainSocketPath: path) else { return nil }
        return address.withSockAddr { body($0, socklen_t($1)) }
    }

    /// Calls `body` with the address of the abstract socket `name` (without its `@`): a NUL,
    /// then the name, and a length that ends exactly there, since trailing NULs would be part
    /// of the name. Nil when the name is empty or longer than ``maximumAbstractNameLength``.
    package static func with<Result>(abstractName name: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result? {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumAbstractNameLength else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw[0] = 0
            UnsafeMutableRawBufferPointer(rebasing: raw[1...]).copyBytes(from: bytes)
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path) ?? 2) + socklen_t(1 + bytes.count)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}
