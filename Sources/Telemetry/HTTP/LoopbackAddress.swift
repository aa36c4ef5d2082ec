import NIOCore

/// Where the endpoint may listen: loopback only, because it has no authentication.
///
/// Checked on the resolved address, not the spelling: `localhost` is taken as 127.0.0.1 without
/// asking a resolver (an `/etc/hosts` that maps it elsewhere must not widen the endpoint), and
/// any other host must be an IP literal inside 127.0.0.0/8 or exactly ::1.
enum LoopbackAddress {
    static func resolve(host: String, port: Int) throws(PrometheusEndpointError) -> SocketAddress {
        guard (0...65535).contains(port) else { throw .invalidPort(port) }
        let literal = host.lowercased() == "localhost" ? "127.0.0.1" : host
        let address: SocketAddress
        do {
            address = try SocketAddress(ipAddress: literal, port: port)
        } catch {
            throw .notLoopback(host)
        }
        switch address {
        case .v4(let v4):
            // s_addr is in network byte order: the first octet is the lowest byte in memory.
            guard withUnsafeBytes(of: v4.address.sin_addr.s_addr, { $0.first }) == 127 else { throw .notLoopback(host) }
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            guard bytes == Array(repeating: 0, count: 15) + [1] else { throw .notLoopback(host) }
        case .unixDomainSocket:
            throw .notLoopback(host)
        }
        return address
    }
}
