/// Why the scrape endpoint did not start: one line for the daemon's log.
package enum PrometheusEndpointError: Error, CustomStringConvertible, Equatable, Sendable {
    /// Not 127.0.0.0/8, ::1 or localhost: the endpoint has no authentication.
    case notLoopback(String)
    case invalidPort(Int)
    /// The bind failed: the port is taken, or the address is not on this machine.
    case bindFailed(host: String, port: Int, reason: String)

    package var description: String {
        switch self {
        case .notLoopback(let host): "prometheus: \(host) is not a loopback address (127.0.0.0/8, ::1, localhost); the endpoint has no authentication"
        case .invalidPort(let port): "prometheus: port \(port) is not from 0 to 65535"
        case .bindFailed(let host, let port, let reason): "prometheus: cannot listen on \(host):\(port): \(reason)"
        }
    }
}
