import BlueZ
import TestSupport
import Clocks
import Dashboard
import Foundation
import MQTT
import MQTTTesting
import Publish
import Synchronization
import Testing
import RetryTiming

/// The MQTT source against a real mosquitto: two gateways' topics, retained state as the
/// snapshot, an `offline` status (a last will) marking a gateway away.
@Suite("MQTTSource", .serialized)
struct MQTTSourceTests {
    @Test func topicsMapToGatewayEvents() throws {
        let sample = Array(Envelopes.line("sample", machine: "SF-Bike-0001", at: 1, seq: 9, payload: Envelopes.bikeSample(power: 99)).utf8)
        func event(_ topic: String, _ payload: [UInt8]) -> GatewayEvent? {
            MQTTSource.event(for: MQTTMessage(topic: topic, payload: payload, qos: 0, retained: false), prefix: "gym")
        }
        #expect(event("gym/front/status", Array("online".utf8)) == .online(gateway: "front"))
        guard case .offline(gateway: "back", _)? = event("gym/back/status", Array("offline\n".utf8)) else {
            Issue.record("offline status")
            return
        }
        guard case .message(gateway: "front", let message)? = event("gym/front/machines/SF-Bike-0001/sample", sample) else {
            Issue.record("a sample")
            return
        }
        #expect(message.envelope.type == .sample && message.envelope.seq == 9)
        #expect(event("gym/front/machines/SF-Bike-0001/sample", Array("garbage".utf8)) == nil)
        let open = Array(Envelopes.line("session_state", machine: "SF-Bike-0001", at: 2, seq: 10, payload: #"{"state":"started"}"#).utf8)
        guard case .message(gateway: "front", let opened)? = event("gym/front/machines/SF-Bike-0001/open_session", open) else {
            Issue.record("a retained open session")
            return
        }
        #expect(opened.envelope.type == .sessionState && opened.envelope.seq == 10)
        #expect(event("gym/front/machines/SF-Bike-0001/open_session", []) == nil)
        #expect(event("gym/front/machines/SF-Bike-0001/other", sample) == nil)
        #expect(event("gym/front/machines/SF-Bike-0001", sample) == nil)
        #expect(event("other/front/status", Array("online".utf8)) == nil)
        #expect(event("gym//status", Array("online".utf8)) == nil)
        #expect(event("homeassistant/sensor/x/config", Array("{}".utf8)) == nil)
    }

    @Test
    func twoGatewaysOnOneBrokerMakeOneFloor() async throws {
        let broker = try await PrivateBroker()
        defer { broker.stop() }
        func client(_ id: String, will: OutgoingMessage? = nil) throws -> MQTTClient {
            try MQTTClient(MQTTConfiguration(
                broker: try BrokerURL(parsing: broker.url), clientID: id, username: broker.username, password: broker.password,
                keepalive: 5, will: will, backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(400))))
        }
        // Gateway "back" publishes its retained state before the dashboard exists.
        let back = try client("back", will: OutgoingMessage(topic: "gym/back/status", text: "offline", qos: .atLeastOnce, retain: true))
        try back.start()
        back.publish(OutgoingMessage(topic: "gym/back/status", text: "online", qos: .atLeastOnce, retain: true))
        back.publish(OutgoingMessage(
            topic: "gym/back/machines/SF-Rower-0001/state",
            text: Envelopes.line("machine", machine: "SF-Rower-0001", at: 1, seq: 1, payload: Envelopes.machine("SF-Rower-0001", state: "ready", type: "rower")),
            qos: .atLeastOnce, retain: true))
        try await waitUntil("back's retained state at the broker") { back.status.queued == 0 && back.status.delivered >= 2 }

        let hub = DashboardHub(clock: .system)
        let source = MQTTSource(client: try client("dashboard"), prefix: "gym", log: { _ in })
        let running = Task { await source.run { await hub.apply($0) } }
        try await waitUntil("the retained rower, before anything live") {
            await hub.state.orderedTiles.map(\.name) == ["SF-Rower-0001"]
        }
        #expect(await hub.state.gateways["back"]?.online == true)

        let front = try client("front")
        try front.start()
        front.publish(OutgoingMessage(
            topic: "gym/front/machines/SF-Bike-0001/sample",
            text: Envelopes.line("sample", machine: "SF-Bike-0001", at: 2, seq: 5, payload: Envelopes.bikeSample(power: 240))))
        front.publish(OutgoingMessage(
            topic: "gym/front/upload", text: Envelopes.line("upload", machine: nil, at: 2, seq: 6, payload: #"{"pending":0,"uploaded":3,"dead":0,"result":"ok"}"#),
            qos: .atLeastOnce, retain: true))
        try await waitUntil("front's bike and upload") {
            let state = await hub.state
            return state.orderedTiles.map { "\($0.gateway)/\($0.name)" } == ["back/SF-Rower-0001", "front/SF-Bike-0001"]
                && state.tiles[.init(gateway: "front", machine: "SF-Bike-0001")]?.power == 240
                && state.gateways["front"]?.upload?.uploaded == 3
        }

        // The back gateway goes: its status turns offline (what its last will publishes).
        back.publish(OutgoingMessage(topic: "gym/back/status", text: "offline", qos: .atLeastOnce, retain: true))
        try await waitUntil("back offline on the floor", timeout: .seconds(40)) {
            await hub.state.gateways["back"]?.online == false
        }
        running.cancel()
        await running.value
        await front.stop()
        await back.stop()
    }

    /// A gateway that went away before the dashboard started: the broker holds its last
    /// will (`offline`) and its machines' last states (`ready`), all retained. The floor shows
    /// the gateway offline, whichever the broker hands over first.
    @Test
    func aGatewayGoneBeforeTheDashboardStartedIsShownOffline() async throws {
        let broker = try await PrivateBroker()
        defer { broker.stop() }
        let configuration = { (id: String, will: OutgoingMessage?) in
            MQTTConfiguration(
                broker: try BrokerURL(parsing: broker.url), clientID: id, username: broker.username, password: broker.password,
                keepalive: 5, will: will, backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(400)))
        }
        let gone = try MQTTClient(try configuration("gone", OutgoingMessage(topic: "gym/gone/status", text: "offline", qos: .atLeastOnce, retain: true)))
        try gone.start()
        gone.publish(OutgoingMessage(topic: "gym/gone/status", text: "online", qos: .atLeastOnce, retain: true))
        for machine in ["SF-Bike-0001", "SF-Rower-0002"] {
            gone.publish(OutgoingMessage(
                topic: "gym/gone/machines/\(machine)/state",
                text: Envelopes.line("machine", machine: machine, at: 1, seq: 1, payload: Envelopes.machine(machine, state: "ready")),
                qos: .atLeastOnce, retain: true))
        }
        try await waitUntil("the gateway's retained state at the broker") { gone.status.queued == 0 && gone.status.delivered >= 3 }
        gone.publish(OutgoingMessage(topic: "gym/gone/status", text: "offline", qos: .atLeastOnce, retain: true))
        try await waitUntil("offline at the broker") { gone.status.queued == 0 && gone.status.delivered >= 4 }
        await gone.stop()

        let hub = DashboardHub(clock: .system)
        let source = MQTTSource(client: try MQTTClient(try configuration("dashboard", nil)), prefix: "gym", log: { _ in })
        let running = Task { await source.run { await hub.apply($0) } }
        try await waitUntil("both machines and the gateway's status") {
            let state = await hub.state
            return state.orderedTiles.count == 2 && state.gateways["gone"]?.reason != nil
        }
        #expect(await hub.state.gateways["gone"]?.online == false)
        running.cancel()
        await running.value
    }
}
