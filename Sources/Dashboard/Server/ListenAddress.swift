import HostPort
import NIOCore

/// `--listen HOST:PORT`, and whether it is loopback (the only place the page may be served
/// without a token).
///
/// Loopback is decided on the parsed address, not the spelling, as the Prometheus endpoint
/// does: `localhost` is 127.0.0.1 without asking a resolver, any other host must be an IP
/// literal, and loopback means 127.0.0.0/8 or ::1.
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
        let literal = host.lowercased() == "localhost" ? "127.0.0.1" : host
        guard (try? SocketAddress(ipAddress: literal, port: port)) != nil else { throw .notAnAddress(host) }
        self.host = literal
        self.port = port
    }

    public var isLoopback: Bool {
        guard let address = try? SocketAddress(ipAddress: host, port: port) else { return false }
        switch address {
        case .v4(let v4):
            // s_addr is in network byte order: the first octet is the lowest byte in memory.
            return withUnsafeBytes(of: v4.address.sin_addr.s_addr) { $0.first } == 127
        case .v6(let v6):
            return withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) } == Array(repeating: 0, count: 15) + [1]
        case .unixDomainSocket:
            return false
        }
    }

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
