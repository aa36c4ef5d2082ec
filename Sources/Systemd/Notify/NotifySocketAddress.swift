import LocalSocket
/// Where `$NOTIFY_SOCKET` points: a file-system socket, or a name in Linux's abstract
/// namespace when the value starts with `@` (sd_notify(3)).
package enum NotifySocketAddress: Sendable, Equatable, CustomStringConvertible {
    case path(String)
    /// The name without its `@`.
    case abstract(String)

    package init(parsing value: String) throws(NotifyError) {
        guard !value.utf8.contains(0) else { throw .unsupportedAddress(value) }
        if value.hasPrefix("/") {
            let limit = UnixSocketAddress.maximumPathLength
            guard value.utf8.count <= limit else { throw .addressTooLong(value, limit: limit) }
            self = .path(value)
        } else if value.hasPrefix("@"), value.utf8.count > 1 {
            // The leading NUL takes the @'s place; the name is not NUL-terminated.
            let limit = UnixSocketAddress.maximumAbstractNameLength + 1
            guard value.utf8.count <= limit else { throw .addressTooLong(value, limit: limit) }
            self = .abstract(String(value.dropFirst()))
        } else {
            throw .unsupportedAddress(value)
        }
    }

    package var description: String {
        switch self {
        case .path(let path): path
        case .abstract(let name): "@" + name
        }
    }
}
