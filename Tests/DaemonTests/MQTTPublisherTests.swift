import BlueZ
import TestSupport
import Daemon
import Foundation
import Logging
import MQTT
import MQTTTesting
import Publish
import Synchronization
import Testing
import Workout
import RetryTiming

/// The daemon's MQTT publisher against a real mosquitto: topics, retained state, QoS, the
/// per-machine sample rate limit and Home Assistant discovery.
@Suite("MQTT publisher on a real mosquitto")
struct MQTTPublisherTests {
    static let topics = MQTTTopics(prefix: "ftms-bridge", gateway: "gw-1")

    func makePublisher(_ broker: PrivateBroker, sampleInterval: Duration = .seconds(1), discovery: Bool = false) throws -> MQTTPublisher {
        let client = try MQTTClient(MQTTConfiguration(
            broker: try BrokerURL(parsing: broker.url), clientID: "gw-1", username: broker.username, password: broker.password,
            keepalive: 5, will: MQTTPublisher.will(Self.topics), backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(300))))
        let origin = ContinuousClock.now
        return MQTTPublisher(
            client: client, topics: Self.topics, kinds: ["state", "sample", "session", "upload"], sampleInterval: sampleInterval,
            discovery: discovery ? HomeAssistantDiscovery(prefix: "homeassistant", topics: Self.topics) : nil,
            now: { ContinuousClock.now - origin }, timers: ContinuousClock())
    }

    func reader(_ broker: PrivateBroker, _ filter: String) async throws -> (MQTTClient, MessageInbox) {
        let client = try MQTTClient(MQTTConfiguration(
            broker: try BrokerURL(parsing: broker.url), clientID: "reader-\(UUID().uuidString.prefix(6))", username: broker.username,
            password: broker.password, backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(300))))
        try client.start()
        let inbox = MessageInbox(client.subscribe(filter, qos: .atLeastOnce))
        try await waitUntil("reader connected") { client.status.state == .connected }
        return (client, inbox)
    }

    @Test func eachMessageTypeGoesToItsTopicWithItsQoSAndRetain() async throws {
        let broker = try await PrivateBroker()
        defer { broker.stop() }
        let publisher = try makePublisher(broker)
        try publisher.start()
        let envelope = { (type: String) in Array(#"{"type":"\#(type)","machine":"SF-Bike-0001"}"#.utf8) }
        publisher.forward(.machine, machine: "SF-Bike-0001", envelope: envelope("machine"))
        publisher.forward(.upload, machine: nil, envelope: envelope("upload"))
        try await waitUntil("flushed") { publisher.client.status.queued == 0 && publisher.client.status.state == .connected }
        // A reader that arrives later sees the retained ones: status, state, upload.
        let (client, inbox) = try await reader(broker, "ftms-bridge/#")
        try await waitUntil("retained") { await inbox.messages.count >= 3 }
        let retained = await Dictionary(inbox.messages.map { ($0.topic, $0.text) }, uniquingKeysWith: { $1 })
        #expect(retained["ftms-bridge/gw-1/status"] == "online")
        #expect(retained["ftms-bridge/gw-1/machines/SF-Bike-0001/state"] == #"{"type":"machine","machine":"SF-Bike-0001"}"#)
        #expect(retained["ftms-bridge/gw-1/upload"] == #"{"type":"upload","machine":"SF-Bike-0001"}"#)
        // Live ones: session (QoS 1) and sample.
        publisher.forward(.sessionState, machine: "SF-Bike-0001", envelope: envelope("session_state"))
        publisher.forward(.sessionSummary, machine: "SF-Bike-0001", envelope: envelope("session_summary"))
        publisher.forward(.sample, machine: "SF-Bike-0001", envelope: envelope("sample"))
        publisher.forward(.status, machine: "SF-Bike-0001", envelope: envelope("status"))
        try await waitUntil("live") { await inbox.texts(on: "ftms-bridge/gw-1/machines/SF-Bike-0001/sample").count == 1 }
        try await waitUntil("sessions") { await inbox.texts(on: "ftms-bridge/gw-1/machines/SF-Bike-0001/session").count == 2 }
        let session = await inbox.messages.filter { $0.topic.hasSuffix("/session") }
        #expect(session.map(\.qos) == [1, 1])
        #expect(session.map(\.text) == [#"{"type":"session_state","machine":"SF-Bike-0001"}"#, #"{"type":"session_summary","machine":"SF-Bike-0001"}"#])
        #expect(await !inbox.messages.contains { $0.text.contains("\"status\"") })
        await publisher.stop()
        try await waitUntil("offline on stop") { await inbox.texts(on: "ftms-bridge/gw-1/status").last == "offline" }
        await client.stop()
    }

    /// 10 machines at 4 Hz for 3 s: each machine's samples are limited to 1 Hz (leading edge
    /// plus one per second), and the last one sent is the last one offered (latest wins).
    @Test func tenMachinesAtFourHertzAreLimitedToOneHertzEachAndTheLatestWins() async throws {
        let broker = try await PrivateBroker()
        defer { broker.stop() }
        let publisher = try makePublisher(broker)
        try publisher.start()
        let (client, inbox) = try await reader(broker, "ftms-bridge/gw-1/machines/+/sample")
        try await waitUntil("publisher connected") { publisher.client.status.state == .connected }
        let machines = (1...10).map { "SF-Bike-\(String(format: "%04d", $0))" }
        let start = ContinuousClock.now
        for tick in 1...12 {
            for machine in machines {
                publisher.forward(.sample, machine: machine, envelope: Array(#"{"tick":\#(tick)}"#.utf8))
            }
            try await Task.sleep(until: start + .milliseconds(250 * tick), clock: .continuous)
        }
        let elapsed = ContinuousClock.now - start
        // The trailing edge: every machine's tick 12 arrives within the next interval.
        try await waitUntil("every machine's last sample") {
            let messages = await inbox.messages
            return machines.allSatisfy { machine in
                messages.last { $0.topic == "ftms-bridge/gw-1/machines/\(machine)/sample" }?.text == #"{"tick":12}"#
            }
        }
        let allowed = Int((elapsed / .seconds(1)).rounded(.up)) + 2
        for machine in machines {
            let received = await inbox.texts(on: "ftms-bridge/gw-1/machines/\(machine)/sample")
            #expect(received.count >= 2 && received.count <= allowed, "\(machine): \(received.count) of 12 in \(elapsed)")
            #expect(received.first == #"{"tick":1}"#)
        }
        // At most one a second per machine over the seconds the offers took (a loaded box
        // stretches them, and the limit lets more through, as it should), and fewer than offered.
        let total = await inbox.messages.count
        #expect(total <= machines.count * allowed && total < 120, "\(total) of 120 in \(elapsed)")
        await publisher.stop()
        await client.stop()
    }

    /// A sample is a live view: what was offered while the broker was away reaches it, once
    /// it is back, as the latest sample of each machine, not as a burst of stale ones. A
    /// persistent subscriber session (kept by the broker across its restart, QoS 0 messages
    /// included) sees everything the gateway sent after the restart, whenever it reconnects.
    @Test
    func samplesOfferedDuringABrokerOutageArriveAsTheLatestOfEachMachine() async throws {
        let broker = try await PrivateBroker(persistent: true, queueQoS0: true)
        defer { broker.stop() }
        let publisher = try makePublisher(broker, sampleInterval: .milliseconds(500))
        try publisher.start()
        let watcher = try MQTTClient(MQTTConfiguration(
            broker: try BrokerURL(parsing: broker.url), clientID: "outage-watch", username: broker.username, password: broker.password,
            backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(300)), cleanSession: false))
        try watcher.start()
        let inbox = MessageInbox(watcher.subscribe("ftms-bridge/gw-1/machines/+/sample", qos: .atLeastOnce))
        let machines = ["SF-Bike-0001", "SF-Bike-0002", "SF-Rower-0003"]
        func ticks(_ machine: String) async -> [Int] {
            await inbox.texts(on: "ftms-bridge/gw-1/machines/\(machine)/sample").compactMap {
                Int($0.dropFirst(#"{"tick":"#.count).dropLast())
            }
        }
        var tick = 0
        func offer() async throws {
            tick += 1
            for machine in machines {
                publisher.forward(.sample, machine: machine, envelope: Array(#"{"tick":\#(tick)}"#.utf8))
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        // Live: every machine's samples reach the watcher.
        while await !machines.asyncAllSatisfy({ await !ticks($0).isEmpty }) {
            guard tick < 300 else { Issue.record("no live samples"); return }
            try await offer()
        }
        await broker.shutDown()
        try await waitUntil("the publisher sees the broker gone") { publisher.client.status.state != .connected }
        let firstAway = tick + 1
        for _ in 0..<30 { try await offer() }
        let lastAway = tick
        try await broker.start()
        try await waitUntil("every machine's last sample after the outage", timeout: .seconds(60)) {
            await machines.asyncAllSatisfy { await ticks($0).contains(lastAway) }
        }
        // The latest queued when the broker came back, and at most the one the rate limit
        // still held then (its trailing edge, due an interval after the one before).
        for machine in machines {
            let away = await ticks(machine).filter { $0 >= firstAway }
            #expect(away.last == lastAway && away.count <= 2, "\(machine): \(away.count) of the samples offered during the outage arrived: \(away)")
        }
        await publisher.stop()
        await watcher.stop()
    }

    @Test func homeAssistantDiscoveryAnnouncesEachMachineAndRemovesOnesNoLongerAllowed() async throws {
        let broker = try await PrivateBroker()
        defer { broker.stop() }
        let publisher = try makePublisher(broker, discovery: true)
        try publisher.start()
        let bike = MachineIdentity(name: "SF-Bike-0001", address: "C0:11:22:33:44:01", model: "SF-Bike-M1", type: .bike)
        let rower = MachineIdentity(name: "SF-Rower-0002", address: "C0:11:22:33:44:02", model: "SF-Rower-M1", type: .rower)
        publisher.announce(bike, manufacturer: "SolidFocus")
        publisher.announce(rower, manufacturer: "SolidFocus")
        try await waitUntil("flushed") { publisher.client.status.queued == 0 && publisher.client.status.state == .connected }
        let (client, inbox) = try await reader(broker, "homeassistant/#")
        try await waitUntil("16 config topics") { await inbox.messages.count == 16 }
        let power = try #require(await inbox.messages.first { $0.topic == "homeassistant/sensor/ftms-bridge_gw-1/SF-Bike-0001_power/config" })
        let parsed = try? JSONSerialization.jsonObject(with: Data(power.payload))
        let config = try #require(parsed as? [String: Any], "\(power.text)")
        #expect(config["state_topic"] as? String == "ftms-bridge/gw-1/machines/SF-Bike-0001/sample")
        #expect(config["unit_of_measurement"] as? String == "W")
        #expect((config["device"] as? [String: Any])?["model"] as? String == "SF-Bike-M1")
        #expect(await inbox.messages.contains { $0.topic == "homeassistant/binary_sensor/ftms-bridge_gw-1/SF-Rower-0002_connectivity/config" })

        // Next start, the rower is no longer allowed: its entities are cleared (empty retained).
        await publisher.stop()
        let next = try makePublisher(broker, discovery: true)
        try next.start()
        await next.removeEntities(keeping: ["SF-Bike-0001"], window: .seconds(2), logger: Logger(label: "test"))
        try await waitUntil("rower entities cleared") {
            await inbox.messages.filter { $0.topic.contains("SF-Rower-0002_") && $0.payload.isEmpty }.count == 8
        }
        #expect(await !inbox.messages.contains { $0.topic.contains("SF-Bike-0001_") && $0.payload.isEmpty })
        await next.stop()
        await client.stop()
    }

    /// An allow-list that names machines by address: the address is read from the device's
    /// Bluetooth connection in the retained config, so the machine no longer listed loses its
    /// entities, the one listed by address keeps them, and so does one listed by name.
    @Test func homeAssistantRemovalMatchesAnAllowListOfAddresses() async throws {
        let broker = try await PrivateBroker()
        defer { broker.stop() }
        let publisher = try makePublisher(broker, discovery: true)
        try publisher.start()
        let machines = [
            MachineIdentity(name: "SF-Bike-0001", address: "c0:11:22:33:44:01", model: "SF-Bike-M1", type: .bike),
            MachineIdentity(name: "SF-Rower-0002", address: "C0:11:22:33:44:02", model: "SF-Rower-M1", type: .rower),
            MachineIdentity(name: "SF-Bike-0003", address: "C0:11:22:33:44:03", model: "SF-Bike-M1", type: .bike),
        ]
        for machine in machines { publisher.announce(machine, manufacturer: "SolidFocus") }
        try await waitUntil("flushed") { publisher.client.status.queued == 0 && publisher.client.status.state == .connected }
        let (client, inbox) = try await reader(broker, "homeassistant/#")
        try await waitUntil("24 config topics") { await inbox.messages.count == 24 }
        let power = try #require(await inbox.messages.first { $0.topic.hasSuffix("/SF-Bike-0001_power/config") })
        #expect(HomeAssistantDiscovery.bluetoothAddress(ofConfig: power.payload) == "C0:11:22:33:44:01")
        #expect(HomeAssistantDiscovery.bluetoothAddress(ofConfig: Array(#"{"device":{"name":"x"}}"#.utf8)) == nil)
        #expect(HomeAssistantDiscovery.bluetoothAddress(ofConfig: Array("not json".utf8)) == nil)

        await publisher.stop()
        let next = try makePublisher(broker, discovery: true)
        try next.start()
        await next.removeEntities(keeping: ["C0:11:22:33:44:01", "SF-Bike-0003"], window: .seconds(2), logger: Logger(label: "test"))
        try await waitUntil("rower entities cleared") {
            await inbox.messages.filter { $0.topic.contains("SF-Rower-0002_") && $0.payload.isEmpty }.count == 8
        }
        #expect(await !inbox.messages.contains { !$0.topic.contains("SF-Rower-0002_") && $0.payload.isEmpty })
        await next.stop()
        await client.stop()
    }

    @Test func topicLevelsCannotReachIntoOtherTopics() {
        #expect(MQTTTopics.level("SF-Bike-0001") == "SF-Bike-0001")
        #expect(MQTTTopics.level("a/b+c#d e") == "a_b_c_d_e")
        #expect(MQTTTopics.level("") == "_")
        #expect(MQTTTopics(prefix: "gym", gateway: "gw/1").state("x/#") == "gym/gw_1/machines/x__/state")
    }
}

extension Sequence {
    func asyncAllSatisfy(_ predicate: (Element) async -> Bool) async -> Bool {
        for element in self where await !predicate(element) { return false }
        return true
    }
}
