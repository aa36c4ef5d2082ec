#if canImport(Glibc)
import Glibc
#endif

/// Whether a host a server listens on is loopback, decided on the address, not its spelling:
/// `localhost` is 127.0.0.1 without asking a resolver (an `/etc/hosts` that maps it elsewhere
/// must not widen an endpoint without authentication), any other host must be an IP literal,
/// and loopback is 127.0.0.0/8 or exactly ::1.
///
/// The one judgement of the dashboard's `--listen`, `[prometheus] listen` as the config reads
/// it, and the Prometheus endpoint as it binds.
public enum ListenScope: Sendable, Equatable {
    case loopback
    /// An IP literal outside loopback (`0.0.0.0`, `192.168.1.5`, `::`).
    case wider
    /// Not an IP literal nor `localhost` (a name, `127.1`, `127.000.0.1`).
    case notAnAddress

    /// `host` without brackets; `localhost` in any case.
    public init(host: String) {
        let literal = Self.literal(host)
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, literal, &v4) == 1 {
            // s_addr is in network byte order: the first octet is the lowest byte in memory.
            self = withUnsafeBytes(of: v4.s_addr) { $0.first } == 127 ? .loopback : .wider
        } else if inet_pton(AF_INET6, literal, &v6) == 1 {
            self = withUnsafeBytes(of: v6) { Array($0) } == Array(repeating: 0, count: 15) + [1] ? .loopback : .wider
        } else {
            self = .notAnAddress
        }
    }

    /// The literal a server binds for `host`: `localhost` as 127.0.0.1, anything else as is.
    public static func literal(_ host: String) -> String {
        host.lowercased() == "localhost" ? "127.0.0.1" : host
    }
}
