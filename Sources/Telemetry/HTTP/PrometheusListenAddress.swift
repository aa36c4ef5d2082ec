import HostPort
import NIOCore

/// Where the endpoint may listen: loopback only, because it has no authentication.
///
/// Checked on the address, not the spelling (``ListenScope``).
enum PrometheusListenAddress {
    static func resolve(host: String, port: Int) throws(PrometheusEndpointError) -> SocketAddress {
        guard (0...65535).contains(port) else { throw .invalidPort(port) }
        guard ListenScope(host: host) == .loopback else { throw .notLoopback(host) }
        do {
            return try SocketAddress(ipAddress: ListenScope.literal(host), port: port)
        } catch {
            throw .notLoopback(host)
        }
    }
}
