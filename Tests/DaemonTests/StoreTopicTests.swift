import BlueZTesting
import TestSupport
import Daemon
import Foundation
import MQTT
import MQTTTesting
import Testing

/// The store's condition on MQTT, on a real mosquitto: retained on `PREFIX/GATEWAY/store`, so a
/// fleet screen arriving later sees at once that a gateway's store cannot write, and the latest
/// condition replaces the one before.
@Suite("MQTT store topic")
struct StoreTopicTests {
    @Test func theStoresConditionIsRetainedAndReplaced() async throws {
        let broker = try await PrivateBroker()
        defer { broker.stop() }
        let rig = MQTTPublisherTests()
        let publisher = try rig.makePublisher(broker)
        try publisher.start()
        publisher.storeChanged(#"{"writable":false,"cause":"disk_full","held_sessions":1}"#)
        publisher.storeChanged(#"{"writable":true,"held_sessions":0}"#)
        try await waitUntil("flushed") { publisher.client.status.queued == 0 && publisher.client.status.state == .connected }
        let (client, inbox) = try await rig.reader(broker, "ftms-bridge/gw-1/store")
        try await waitUntil("the retained store message") { await !inbox.messages.isEmpty }
        let message = try #require(await inbox.messages.first)
        #expect(message.topic == "ftms-bridge/gw-1/store")
        #expect(message.retained)
        #expect(message.text == #"{"writable":true,"held_sessions":0}"#)
        publisher.storeChanged(#"{"writable":false,"cause":"read_only","held_sessions":2}"#)
        try await waitUntil("the change, live") { await inbox.messages.count >= 2 }
        #expect(await inbox.messages.last?.text == #"{"writable":false,"cause":"read_only","held_sessions":2}"#)
        await client.stop()
        await publisher.stop()
    }
}
