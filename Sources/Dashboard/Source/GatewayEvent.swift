public import Floor
public import Publish

/// What a ``DashboardSource`` delivers: the dashboard's whole input protocol.
///
/// A source speaks for one or more gateways, each named. The metrics socket gives a `hello`
/// on every connection (``snapshot``) and then envelopes in order (``message``); MQTT gives
/// retained `machines/+/state` and `upload` messages on subscribe (``message`` each, after
/// ``online``) and the gateway's `status` topic (``online`` / ``offline``). A gateway that
/// goes away is ``offline``: its tiles stay, marked, until it comes back.
public enum GatewayEvent: Sendable, Equatable {
    /// The gateway's current state, replacing what was known of it: the `machines` and
    /// `sessions` lists of a `hello`, as complete envelopes, and the `hello`'s `seq`.
    case snapshot(gateway: String, machines: [MetricsMessage], sessions: [MetricsMessage], seq: UInt64)
    /// One published envelope.
    case message(gateway: String, MetricsMessage)
    /// The gateway is reachable (before its snapshot or retained messages).
    case online(gateway: String)
    /// The gateway stopped answering: the socket closed, or its MQTT status went `offline`.
    case offline(gateway: String, reason: String)
    /// With the floor on (docs/fleet.md), a gateway's retained presence on
    /// `PREFIX/floor/gateways/GATEWAY`: which machines are its home. No sign of life for the
    /// strip: the gateway's `status` says that.
    case presence(GatewayPresence)
    /// With the floor on, who holds a machine, from `PREFIX/floor/machines/ADDRESS/claim`.
    case claim(MachineClaim)

    /// The gateway the event is about; for a claim its holder (empty once released).
    public var gateway: String {
        switch self {
        case .snapshot(let gateway, _, _, _), .message(let gateway, _), .online(let gateway), .offline(let gateway, _): gateway
        case .presence(let presence): presence.gateway
        case .claim(let claim): claim.holder ?? ""
        }
    }

    /// The event a `hello` envelope stands for, or nil if `hello` is not one. An entry of its
    /// lists that is not an envelope is left out.
    public static func snapshot(gateway: String, hello: MetricsMessage) -> GatewayEvent? {
        guard hello.envelope.type == .hello else { return nil }
        let machines = (hello.payload["machines"]?.array ?? []).compactMap { try? MetricsMessage(json: $0) }
        let sessions = (hello.payload["sessions"]?.array ?? []).compactMap { try? MetricsMessage(json: $0) }
        return .snapshot(gateway: gateway, machines: machines, sessions: sessions, seq: hello.envelope.seq)
    }
}

/// Where the dashboard's events come from. ``run(_:)`` delivers events until the task is
/// cancelled, reconnecting by itself; it returns only when cancelled.
public protocol DashboardSource: Sendable {
    /// A one-line description for logs (`metrics socket /run/ftms-bridge/metrics.sock`).
    var description: String { get }
    func run(_ deliver: @escaping @Sendable (GatewayEvent) async -> Void) async
}
