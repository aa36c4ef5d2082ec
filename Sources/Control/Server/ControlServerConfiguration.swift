import LocalSocket

/// Where and how the control socket listens (contract §7: owner only).
package struct ControlServerConfiguration: Sendable, Equatable {
    /// The socket file. No default here: the daemon's comes from its config (DaemonConfig's
    /// `GatewayPaths`, the one place the gateway's paths are written).
    package var path: String
    /// The socket file's permission bits. 0600: only the daemon's user (and root) may change
    /// anything. Any mode up to 0777 is taken; it holds from the first moment the file exists.
    package var mode: UInt32
    /// Clients connected at once; one more is answered `busy` and closed.
    package var maxClients: Int
    /// A client that sends nothing (and reads nothing) for this long, while no request of its
    /// is being handled, is told so and closed.
    package var idleTimeout: Duration
    /// The longest request line, without its newline; a longer one is answered
    /// `line_too_long` and the connection closed.
    package var maximumLineLength: Int
    /// Requests read ahead of the one being handled, per connection, before reading pauses.
    package var maximumQueuedRequests: Int

    package init(
        path: String, mode: UInt32 = 0o600, maxClients: Int = 16, idleTimeout: Duration = .seconds(60),
        maximumLineLength: Int = 64 * 1024, maximumQueuedRequests: Int = 16
    ) {
        self.path = path
        self.mode = mode
        self.maxClients = maxClients
        self.idleTimeout = idleTimeout
        self.maximumLineLength = maximumLineLength
        self.maximumQueuedRequests = maximumQueuedRequests
    }

    func validate() throws(LocalSocketError) {
        guard mode & ~0o777 == 0 else { throw .badConfiguration("mode \(String(mode, radix: 8)) is not a permission mode (0 to 777 octal)") }
        guard maxClients >= 1 else { throw .badConfiguration("maxClients must be at least 1") }
        guard idleTimeout > .zero else { throw .badConfiguration("idleTimeout must be positive") }
        guard maximumLineLength >= 256 else { throw .badConfiguration("maximumLineLength must be at least 256 bytes") }
        guard maximumQueuedRequests >= 1 else { throw .badConfiguration("maximumQueuedRequests must be at least 1") }
    }
}
