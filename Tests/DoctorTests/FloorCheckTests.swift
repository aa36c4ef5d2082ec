import DaemonConfig
import Floor
import Foundation
import MQTT
import MQTTTesting
import TestSupport
import Testing
@testable import Doctor

/// The floor's checks (docs/fleet.md): the round trip of a retained QoS 1 message under
/// `PREFIX/floor/` against a real mosquitto (allowed, and denied by the broker's ACL), and the
/// gateways' settings read from their retained presences.
@Suite("Floor checks")
struct FloorCheckTests {
    func config(_ broker: PrivateBroker, fleet: Bool = true) -> DaemonConfig {
        var config = DaemonConfig()
        config.mqtt.enabled = true
        config.mqtt.broker = broker.url
        config.mqtt.topicPrefix = "gym"
        config.mqtt.username = broker.username
        config.mqtt.passwordFile = broker.passwordFile
        config.fleet.enabled = fleet
        config.fleet.gateway = "floor-1"
        return config
    }

    func publisher(_ broker: PrivateBroker) async throws -> MQTTClient {
        let client = try MQTTClient(MQTTConfiguration(
            broker: try BrokerURL(parsing: broker.url), clientID: "test-publisher", username: broker.username, password: broker.password))
        try client.start()
        return client
    }

    @Test func aBrokerThatLetsTheGatewayWriteAndReadTheFloorIsOKAndTheOddGatewaysAreNamed() async throws {
        let broker = try await PrivateBroker()
        defer { broker.stop() }
        let client = try await publisher(broker)
        let topics = FloorTopics(prefix: "gym")
        let same = GatewayPresence(gateway: "floor-2", home: ["SF-Bike-0002"], beat: 9, rules: FloorRules())
        let longer = GatewayPresence(gateway: "floor-3", home: [], beat: 3, rules: FloorRules(lease: .seconds(12)))
        let silent = GatewayPresence(gateway: "floor-4", home: [], beat: 1)
        for presence in [same, longer, silent] {
            client.publish(OutgoingMessage(topic: topics.presence(gateway: presence.gateway), payload: presence.payload, qos: .atLeastOnce, retain: true))
        }
        let readBack = MessageInbox(client.subscribe("gym/floor/gateways/+", qos: .atLeastOnce))
        try await waitUntil("the presences are retained") { await readBack.messages.count == 3 }

        let results = await FloorCheck(config: config(broker), timeout: .seconds(10), listen: .milliseconds(500)).run()
        #expect(results.map(\.id) == ["floor.broker", "floor.settings.floor-3", "floor.settings.floor-4"], "\(results)")
        #expect(results.first?.status == .ok, "\(results.first?.detail ?? "")")
        #expect(results.first?.detail == "gateway publishes and reads back retained QoS 1 messages under gym/floor/")
        #expect(results.dropFirst().allSatisfy { $0.status == .warning })
        #expect(results.dropFirst().first?.detail == "floor-3 runs lease 12 s (this gateway 10 s)")
        #expect(results.last?.detail == "floor-4 does not say its [fleet] settings: it cannot be compared")

        // The test message is gone: a later subscriber gets the floor's retained messages
        // (a marker published after the check among them) and nothing under floor/doctor/.
        client.publish(OutgoingMessage(topic: "gym/floor/zz-marker", text: "after", qos: .atLeastOnce, retain: true))
        let later = MessageInbox(client.subscribe("gym/floor/#", qos: .atLeastOnce))
        try await waitUntil("the marker is retained") { await !later.texts(on: "gym/floor/zz-marker").isEmpty }
        #expect(await later.messages.filter { $0.topic.hasPrefix("gym/floor/doctor/") }.isEmpty)
        await client.stop()
    }

    @Test func aBrokerWhoseACLDeniesTheFloorFails() async throws {
        let broker = try await PrivateBroker(acl: "user gateway\ntopic readwrite gym/+/status\ntopic read gym/floor/#\n")
        defer { broker.stop() }
        let results = await FloorCheck(config: config(broker), timeout: .seconds(3), listen: .zero).run()
        #expect(results.map(\.id) == ["floor.broker", "floor.settings"])
        #expect(results.first?.status == .failed)
        #expect(results.first?.detail.contains("publishing or subscribing is denied") == true, "\(results.first?.detail ?? "")")
        #expect(results.first?.hint == "the broker's ACL must let gateway read and write gym/floor/#")
        #expect(results.last?.status == .skipped)
    }

    @Test func withTheFloorOffThereIsNoLineAndWithoutMQTTItFails() async throws {
        let broker = try await PrivateBroker()
        defer { broker.stop() }
        #expect(await FloorCheck(config: config(broker, fleet: false), timeout: .seconds(1), listen: .zero).run().isEmpty)
        var island = config(broker)
        island.mqtt.enabled = false
        let results = await FloorCheck(config: island, timeout: .seconds(1), listen: .zero).run()
        #expect(results.map(\.status) == [.failed])
    }

    /// Through the whole doctor: the floor's lines come after the MQTT check, only with `[fleet]`
    /// on, and are skipped when the broker is not there.
    @Test func theReportHasTheFloorsLinesAfterMQTTOnlyWithTheFloorOn() async throws {
        let broker = try await PrivateBroker()
        defer { broker.stop() }
        let directory = try TemporaryDirectory()
        func report(fleet: Bool) async throws -> [String] {
            try directory.write("etc/config.toml", """
                [mqtt]
                enabled = true
                broker = "\(broker.url)"
                username = "\(broker.username)"
                password_file = "\(broker.passwordFile)"

                [fleet]
                enabled = \(fleet)
                """)
            var inputs = DoctorInputs.isolated(in: directory)
            inputs.timeouts.floorListen = .zero
            return await Doctor(inputs: inputs).run().checks.map { "\($0.id) \($0.status)" }
        }
        #expect(try await report(fleet: false).last == "mqtt ok")
        #expect(try await Array(report(fleet: true).suffix(3)) == ["mqtt ok", "floor.broker ok", "floor.settings ok"])
        await broker.kill()
        #expect(try await Array(report(fleet: true).suffix(2)) == ["mqtt failed", "floor.broker skipped"])
    }

    @Test func twoGatewaysUnderOneNameShowInTheirPresences() {
        let review = FloorSettingsReview(topics: FloorTopics(prefix: "gym"), gateway: "floor-1", home: ["SF-Bike-0001"], rules: FloorRules())
        func message(_ presence: GatewayPresence) -> MQTTMessage {
            MQTTMessage(topic: "gym/floor/gateways/\(presence.gateway)", payload: presence.payload, qos: 1, retained: false)
        }
        let agreeing = review.results([
            message(GatewayPresence(gateway: "floor-1", home: ["SF-Bike-0001"], beat: 5, rules: FloorRules())),
            message(GatewayPresence(gateway: "floor-2", home: [], beat: 40, rules: FloorRules())),
            message(GatewayPresence(gateway: "floor-2", home: [], beat: 41, rules: FloorRules())),
            message(GatewayPresence(gateway: "floor-2", home: [], beat: 0, rules: FloorRules())),
        ])
        #expect(agreeing.map(\.status) == [.ok], "a restart (beat back to 0) is one gateway: \(agreeing)")
        #expect(agreeing.first?.detail == "2 gateways on the floor (floor-1, floor-2) run heartbeat 3 s, lease 10 s, rssi_margin 10 as this config does")

        let twins = review.results([
            message(GatewayPresence(gateway: "floor-2", home: [], beat: 40, rules: FloorRules())),
            message(GatewayPresence(gateway: "floor-2", home: [], beat: 7, rules: FloorRules())),
            message(GatewayPresence(gateway: "floor-1", home: ["SF-Bike-0009"], beat: 5, rules: FloorRules(rssiMargin: 6))),
            MQTTMessage(topic: "gym/floor/gateways/junk", payload: Array("nope".utf8), qos: 1, retained: true),
        ])
        #expect(twins.map(\.id) == ["floor.presence.junk", "floor.name.floor-2", "floor.name.floor-1", "floor.settings.floor-1"], "\(twins)")
        #expect(twins[1].detail == "two gateways publish as floor-2: its beat went from 40 back to 7")
        #expect(twins[2].detail.hasPrefix("another gateway publishes as floor-1, this gateway's name: its home list is [SF-Bike-0009]"))
        #expect(twins[3].detail == "floor-1 runs rssi_margin 6 (this gateway 10)")
    }
}
