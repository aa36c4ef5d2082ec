import Floor
import Foundation
public import MQTT
import Publish

/// Every gateway of a gym from an MQTT broker (docs/mqtt.md's topics) as a ``DashboardSource``.
///
/// It subscribes to `PREFIX/#` and reads:
///
/// - `PREFIX/GATEWAY/status`: retained `online` / `offline` (the gateway's last will), as
///   ``GatewayEvent/online(gateway:)`` and ``GatewayEvent/offline(gateway:reason:)``;
/// - `PREFIX/GATEWAY/upload` and `PREFIX/GATEWAY/machines/MACHINE/state|sample|session|open_session`:
///   contract §7 envelopes, each a ``GatewayEvent/message(gateway:_:)``;
/// - with the floor on (docs/fleet.md), `PREFIX/floor/gateways/GATEWAY` and
///   `PREFIX/floor/machines/ADDRESS/claim`, as ``GatewayEvent/presence(_:)`` and
///   ``GatewayEvent/claim(_:)``: who holds each machine, and whose home it is. The floor's other
///   messages (mirrored checkpoints) are no business of the page and are passed over quietly.
///
/// There is no `hello` on MQTT: the broker's retained `status`, `state`, `open_session` and
/// `upload` messages,
/// sent again on every (re)subscribe, are the snapshot. The client (libmosquitto, in the MQTT
/// module) reconnects by itself; a subscriber that falls behind loses the oldest messages
/// beyond its buffer rather than slowing the client. `seq` jumps are normal here (samples are
/// rate-limited per machine), so the strip's gap count means nothing for an MQTT gateway.
public struct MQTTSource: DashboardSource {
    public let prefix: String
    private let client: MQTTClient
    private let log: @Sendable (String) -> Void

    public init(client: MQTTClient, prefix: String = "ftms-bridge", log: @escaping @Sendable (String) -> Void) {
        self.client = client
        self.prefix = prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix
        self.log = log
    }

    public var description: String { "MQTT \(client.configuration.broker) topics \(prefix)/#" }

    public func run(_ deliver: @escaping @Sendable (GatewayEvent) async -> Void) async {
        let messages = client.subscribe("\(prefix)/#", qos: .atLeastOnce, buffer: 10_000)
        do {
            try client.start()
        } catch {
            log("dashboard: \(description): \(error)")
            return
        }
        await withDiscardingTaskGroup { group in
            group.addTask { [client, log, description] in
                // One line per change of state, not per retry.
                var failing = false
                for await event in client.events {
                    switch event {
                    case .connected:
                        if failing { log("dashboard: \(description): connected") }
                        failing = false
                    case .connectFailed(let reason, _), .connectionLost(let reason, _):
                        if !failing { log("dashboard: \(description): \(reason); reconnecting") }
                        failing = true
                    }
                }
            }
            for await message in messages {
                if let event = Self.event(for: message, prefix: prefix) {
                    await deliver(event)
                } else if !FloorTopics(prefix: prefix).contains(message.topic) {
                    log("dashboard: \(description): skipped a message on \(message.topic)")
                }
            }
            group.cancelAll()
        }
        await client.stop()
    }

    /// What one MQTT message means, or nil for a topic or payload this reader does not know.
    public static func event(for message: MQTTMessage, prefix: String) -> GatewayEvent? {
        guard message.topic.hasPrefix(prefix + "/") else { return nil }
        switch FloorTopics(prefix: prefix).parse(message.topic) {
        case .presence?: return (try? GatewayPresence(payload: message.payload)).map { .presence($0) }
        case .claim?: return (try? MachineClaim(payload: message.payload)).map { .claim($0) }
        case .checkpoint?: return nil
        case nil: break
        }
        let parts = message.topic.dropFirst(prefix.count + 1).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard let gateway = parts.first, !gateway.isEmpty else { return nil }
        switch parts.dropFirst().first {
        case "status" where parts.count == 2:
            let text = message.text.trimmingCharacters(in: .whitespacesAndNewlines)
            switch text {
            case "online": return .online(gateway: gateway)
            case "offline": return .offline(gateway: gateway, reason: "the gateway's MQTT status is offline")
            case "": return nil  // a retained status cleared
            default: return nil
            }
        case "upload" where parts.count == 2:
            return (try? MetricsMessage(line: message.payload)).map { .message(gateway: gateway, $0) }
        case "machines" where parts.count == 4 && ["state", "sample", "session", "open_session"].contains(parts[3]):
            // An empty `open_session` is a session's retained state cleared: its end came on
            // `session` already.
            guard !message.payload.isEmpty else { return nil }
            return (try? MetricsMessage(line: message.payload)).map { .message(gateway: gateway, $0) }
        default:
            return nil
        }
    }
}
