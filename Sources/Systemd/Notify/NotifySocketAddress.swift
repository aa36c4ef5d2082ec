/// Where `$NOTIFY_SOCKET` points: a file-system socket, or a name in Linux's abstract
/// namespace when the value starts with `@` (sd_notify(3)).
package enum NotifySocketAddress: Sendable, Equatable, CustomStringConvertible {
    case path(String)
    /// The name without its `@`.
    case abstract(String)

    /// `sizeof(sockaddr_un.sun_path)` on Linux.
    package static let sunPathCapacity = 108

    package init(parsing value: String) throws(NotifyError) {
        guard !value.utf8.contains(0) else { throw .unsupportedAddress(value) }
        if value.hasPrefix("/") {
            // A path needs its terminating NUL inside sun_path.
            guard value.utf8.count < Self.sunPathCapacity else { throw .addressTooLong(value, limit: Self.sunPathCapacity - 1) }
            self = .path(value)
        } else if value.hasPrefix("@"), value.utf8.count > 1 {
            // The leading NUL takes the @'s place; the name is not NUL-terminated.
            guard value.utf8.count <= Self.sunPathCapacity else { throw .addressTooLong(value, limit: Self.sunPathCapacity) }
            self = .abstract(String(value.dropFirst()))
        } else {
            throw .unsupportedAddress(value)
        }
    }

    /// The bytes that go into `sun_path`, with the length that counts: a path with its NUL, an
    /// abstract name after a leading NUL and without a trailing one.
    var sunPath: [UInt8] {
        switch self {
        case .path(let path): Array(path.utf8) + [0]
        case .abstract(let name): [0] + Array(name.utf8)
        }
    }

    package var description: String {
        switch self {
        case .path(let path): path
        case .abstract(let name): "@" + name
        }
    }
}
