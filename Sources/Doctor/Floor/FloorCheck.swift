import Clocks
import DaemonConfig
import Floor
import JSON
import MQTT

/// Check 6c, with `[fleet]` on only: can this gateway do its part of the floor on the broker
/// (docs/fleet.md), and do the gateways there agree on how to place machines
/// (``FloorSettingsReview``)?
///
/// One connection as the `mqtt` check makes it (``ProbeConnection``), subscribed to `PREFIX/floor/#` at QoS 1: it publishes a retained QoS 1 message
/// on `PREFIX/floor/doctor/CLIENT` (a level the daemons ignore) and waits to read it back,
/// which is what the floor needs of the broker's ACL (write and read, retained, under
/// `PREFIX/floor/`); then clears it with an empty retained message, and reads the retained
/// presences for ``listen`` so a second publisher under one name shows itself.
struct FloorCheck: Sendable {
    static let id = "floor.broker"
    static let title = "Floor on the broker"

    var config: DaemonConfig
    var timeout: Duration
    /// How long the presences are read: a heartbeat and a bit, so each live gateway sends one.
    var listen: Duration

    /// No line at all with `[fleet]` off: the report reads as it did before the floor.
    func run() async -> [CheckResult] {
        guard config.fleet.enabled else { return [] }
        guard config.mqtt.enabled else {
            return [CheckResult(
                id: Self.id, title: Self.title, status: .failed, detail: "[fleet] is on but [mqtt] is off: the daemon runs as an island",
                hint: "turn [mqtt] on, or [fleet] off")]
        }
        let settings = config.mqtt
        let topics = FloorTopics(prefix: settings.topicPrefix)
        let clientID = "ftms-bridge-doctor-floor-\(UInt32.random(in: 0...UInt32.max))"
        let testTopic = topics.probe(client: clientID)
        var data: [String: JSONValue] = ["broker": .string(settings.broker), "topic": .string(testTopic)]
        let client: MQTTClient
        do {
            client = try MQTTClient(ProbeConnection.configuration(settings, clientID: clientID, timeout: timeout))
        } catch {
            return [CheckResult(id: Self.id, title: Self.title, status: .skipped, detail: "cannot connect: \(error) (see mqtt)")]
        }
        let inbox = FloorInbox(client.subscribe(topics.everything, qos: .atLeastOnce))
        do {
            try client.start()
        } catch {
            return [CheckResult(id: Self.id, title: Self.title, status: .skipped, detail: "cannot connect: \(error) (see mqtt)")]
        }
        let started = ContinuousClock.now
        guard case .connected? = await ProbeConnection.firstOutcome(client, timeout: timeout) else {
            await client.stop(flushTimeout: .zero)
            return [CheckResult(id: Self.id, title: Self.title, status: .skipped, detail: "the broker did not accept the connection (see mqtt)")]
        }
        let nonce = Array("doctor \(clientID)".utf8)
        client.publish(OutgoingMessage(topic: testTopic, payload: nonce, qos: .atLeastOnce, retain: true))
        let echoed = await withTimeout(timeout) { await inbox.arrival(topic: testTopic, payload: nonce) } ?? false
        client.publish(OutgoingMessage(topic: testTopic, payload: [], qos: .atLeastOnce, retain: true))
        let cleared = await withTimeout(timeout) { await inbox.arrival(topic: testTopic, payload: []) } ?? false
        let remaining = listen - (ContinuousClock.now - started)
        if remaining > .zero { _ = await withTimeout(remaining) { await inbox.end() } }
        await client.stop(flushTimeout: .seconds(1))
        let messages = await inbox.messages
        let others = messages.filter { $0.topic != testTopic }.count
        data["echoed"] = .bool(echoed)
        data["cleared"] = .bool(cleared)
        data["floor_messages"] = .integer(Int64(others))
        let review = FloorSettingsReview(
            topics: topics, gateway: config.fleet.gateway.isEmpty ? config.mqtt.gateway : config.fleet.gateway, home: config.machines.allow,
            rules: FloorRules(
                heartbeat: config.fleet.heartbeat, lease: config.fleet.lease, rssiMargin: config.fleet.rssiMargin,
                heardWindow: config.fleet.heardWindow, holdUnconfirmed: config.fleet.holdUnconfirmed,
                disconnectGrace: config.sessions.rules.disconnectGrace))
        let who = settings.username.isEmpty ? "this gateway" : settings.username
        guard echoed else {
            let why = others > 0
                ? "the broker sends \(who) the floor's messages but not its own retained QoS 1 message on \(testTopic): publishing is denied"
                : "no retained QoS 1 message on \(testTopic) came back within \(Seconds.text(timeout)), nor any floor message: publishing or subscribing is denied"
            return [CheckResult(
                id: Self.id, title: Self.title, status: .failed, detail: why,
                hint: "the broker's ACL must let \(who) read and write \(topics.everything)", data: data),
            .skipped(id: FloorSettingsReview.id, title: FloorSettingsReview.title, because: "the floor's topics are not readable (see \(Self.id))")]
        }
        let broker = CheckResult(
            id: Self.id, title: Self.title, status: cleared ? .ok : .warning,
            detail: cleared
                ? "\(who) publishes and reads back retained QoS 1 messages under \(topics.everything.dropLast(2))/"
                : "\(who) publishes and reads retained QoS 1 messages, but its empty message clearing \(testTopic) did not come back",
            hint: cleared ? nil : "clear it by hand: mosquitto_pub -r -n -t '\(testTopic)'", data: data)
        return [broker] + review.results(messages)
    }
}
