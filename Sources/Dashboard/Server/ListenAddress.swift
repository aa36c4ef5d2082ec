import HostPort

/// `--listen HOST:PORT`, and whether it is loopback (the only place the page may be served
/// without a token).
///
/// Loopback is decided on the parsed address, not the spelling (``ListenScope``).
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public static let defaultPort = 8088

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `127.0.0.1:8088`, `[::1]:0`, `0.0.0.0:80`, `localhost:8088`, or `:8088` (loopback).
    public init(parsing text: String) throws(ListenAddressError) {
        guard let parsed = try? HostPort(parsing: text), let port = parsed.port else { throw .malformed(text) }
        let host = parsed.host.isEmpty ? "127.0.0.1" : parsed.host
        guard ListenScope(host: host) != .notAnAddress else { throw .notAnAddress(host) }
        self.host = ListenScope.literal(host)
        self.port = port
    }

    public var isLoopback: Bool { ListenScope(host: host) == .loopback }

    public var description: String { HostPort.text(host: host, port: port) }
}

public enum ListenAddressError: Error, Equatable, CustomStringConvertible {
    case malformed(String)
    case notAnAddress(String)

    public var description: String {
        switch self {
        case .malformed(let text): "--listen \(text): expected HOST:PORT (e.g. 127.0.0.1:8088 or [::1]:8088)"
        case .notAnAddress(let host): "--listen: \(host) is not an IP address (give a literal, or localhost)"
        }
    }
}
