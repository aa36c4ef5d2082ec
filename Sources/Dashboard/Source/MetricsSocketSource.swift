public import MetricsClient

/// One gateway's metrics socket (docs/metrics-socket.md) as a ``DashboardSource``: the `hello`
/// that opens every connection becomes a ``GatewayEvent/snapshot(gateway:machines:sessions:seq:)``
/// and every later line a ``GatewayEvent/message(gateway:_:)``.
///
/// The socket is read by the one client, `MetricsClient.MetricsSocketClient`, which reconnects
/// forever with the shared jittered backoff: the daemon restarts, and the dashboard simply
/// comes back with it. A line that is not an envelope is skipped with one log line; a line
/// over the client's limit ends the connection.
public struct MetricsSocketSource: DashboardSource {
    public let gateway: String
    private let client: MetricsSocketClient
    private let log: @Sendable (String) -> Void

    public init(client: MetricsSocketClient, gateway: String, log: @escaping @Sendable (String) -> Void) {
        self.client = client
        self.gateway = gateway
        self.log = log
    }

    public var description: String { "metrics socket \(client.path) (gateway \(gateway))" }

    public func run(_ deliver: @escaping @Sendable (GatewayEvent) async -> Void) async {
        // One line per change of state, not per retry; the tiles wait for a `hello`.
        var offline = false
        var greeted = false
        await client.run { event in
            switch event {
            case .connected:
                if offline { log("dashboard: \(description): connected") }
                offline = false
                greeted = false
                await deliver(.online(gateway: gateway))
            case .message(let message, _):
                if message.envelope.type == .hello {
                    greeted = true
                    if let snapshot = GatewayEvent.snapshot(gateway: gateway, hello: message) { await deliver(snapshot) }
                } else if greeted {
                    await deliver(.message(gateway: gateway, message))
                }
            case .unreadable(_, let error):
                log("dashboard: \(description): skipped \(error)")
            case .disconnected(let reason, _):
                guard !offline else { return }
                log("dashboard: \(description): \(reason); reconnecting")
                await deliver(.offline(gateway: gateway, reason: "\(reason)"))
                offline = true
            }
        }
    }
}
