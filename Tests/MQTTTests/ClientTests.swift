import BlueZ
import TestSupport
import Foundation
import MQTT
import MQTTTesting
import Testing
import RetryTiming

/// The client against a real mosquitto (MQTTTesting.PrivateBroker), one per test.
@Suite("MQTT client on a real mosquitto")
struct ClientTests {
    static let quickRetry = Backoff(initial: .milliseconds(50), maximum: .milliseconds(400))

    func client(_ broker: PrivateBroker, id: String, password: String? = nil, will: OutgoingMessage? = nil, cleanSession: Bool = true) throws -> MQTTClient {
        try MQTTClient(MQTTConfiguration(
            broker: try BrokerURL(parsing: broker.url), clientID: id, username: broker.username,
            password: password ?? broker.password, keepalive: 5, will: will, backoff: Self.quickRetry, cleanSession: cleanSession))
    }

    @Test func publishesQoS0AndQoS1AndARetainedMessageReachesALateSubscriber() async throws {
        let broker = try await PrivateBroker()
        defer { broker.stop() }
        let reader = try client(broker, id: "reader")
        try reader.start()
        let inbox = MessageInbox(reader.subscribe("gym/#", qos: .atLeastOnce))
        try await waitUntil("reader connected") { reader.status.state == .connected }

        let writer = try client(broker, id: "writer")
        try writer.start()
        // Subscriptions are sent once connected: wait for the broker to have it by a probe.
        try await waitUntil("subscription active") {
            writer.publish(OutgoingMessage(topic: "gym/probe", text: "p"))
            try? await Task.sleep(for: .milliseconds(20))
            return await !inbox.texts(on: "gym/probe").isEmpty
        }
        for n in 1...50 { writer.publish(OutgoingMessage(topic: "gym/qos1", text: "\(n)", qos: .atLeastOnce)) }
        writer.publish(OutgoingMessage(topic: "gym/status", text: "online", qos: .atLeastOnce, retain: true))
        try await waitUntil("50 QoS 1 messages in order") { await inbox.texts(on: "gym/qos1") == (1...50).map(String.init) }
        try await waitUntil("writer's queue empty") { writer.status.queued == 0 }
        #expect(writer.status.delivered >= 51)

        // A subscriber that comes later gets the retained status from the broker.
        let late = try client(broker, id: "late")
        try late.start()
        let lateInbox = MessageInbox(late.subscribe("gym/status"))
        try await waitUntil("retained status") { await lateInbox.texts(on: "gym/status") == ["online"] }
        #expect(await lateInbox.messages.first?.retained == true)
        await writer.stop()
        await reader.stop()
        await late.stop()
        #expect(writer.status.state == .stopped)
    }

    @Test func aWrongPasswordIsOneClearErrorAndTheClientKeepsTrying() async throws {
        let broker = try await PrivateBroker()
        defer { broker.stop() }
        let wrong = try client(broker, id: "wrong", password: "not-the-password")
        try wrong.start()
        var events = wrong.events.makeAsyncIterator()
        let first = await events.next()
        guard case .connectFailed(let reason, _)? = first else {
            Issue.record("expected a failed connect, got \(String(describing: first))")
            return
        }
        #expect(reason == "\(broker.url): broker refused the connection: not authorised")
        #expect(!reason.contains(broker.password) && !reason.contains("not-the-password"))
        // It keeps trying, with backoff, and never connects.
        guard case .connectFailed? = await events.next() else {
            Issue.record("expected a second attempt")
            return
        }
        #expect(wrong.status.connections == 0)
        #expect(wrong.status.state != .connected)
        #expect(wrong.status.lastError?.contains("not authorised") == true)
        await wrong.stop()
    }

    @Test func aBrokerAbsentAtStartIsWaitedForAndQueuedMessagesGoWhenItComes() async throws {
        let broker = try await PrivateBroker()
        defer { broker.stop() }
        await broker.kill()
        let writer = try client(broker, id: "early")
        try writer.start()
        for n in 1...5 { writer.publish(OutgoingMessage(topic: "gym/session", text: "\(n)", qos: .atLeastOnce)) }
        writer.publish(OutgoingMessage(topic: "gym/status", text: "online", qos: .atLeastOnce, retain: true))
        try await waitUntil("a refused attempt") { writer.status.lastError?.hasSuffix("connection refused") == true }
        #expect(writer.status.state != .connected)
        #expect(writer.status.queued == 6)

        try await broker.start()
        try await waitUntil("connected once the broker is up") { writer.status.state == .connected }
        try await waitUntil("queue flushed") { writer.status.queued == 0 }
        let reader = try client(broker, id: "reader")
        try reader.start()
        let inbox = MessageInbox(reader.subscribe("gym/status"))
        try await waitUntil("retained status") { await inbox.texts(on: "gym/status") == ["online"] }
        await writer.stop()
        await reader.stop()
    }

    /// Broker restarted mid-stream: QoS 1 messages published before, during and after the
    /// outage all arrive (the reader keeps a persistent session, so the broker queues for it
    /// while it reconnects), and retained state is there again even from a broker that lost it.
    @Test func aBrokerRestartLosesNoQoS1MessageAndRetainedStateComesBack() async throws {
        let broker = try await PrivateBroker(persistent: true)
        defer { broker.stop() }
        let reader = try client(broker, id: "reader", cleanSession: false)
        try reader.start()
        let inbox = MessageInbox(reader.subscribe("gym/#", qos: .atLeastOnce))
        let writer = try client(broker, id: "writer")
        try writer.start()
        try await waitUntil("both connected") { writer.status.state == .connected && reader.status.state == .connected }
        try await waitUntil("subscription active") {
            writer.publish(OutgoingMessage(topic: "gym/probe", text: "p"))
            try? await Task.sleep(for: .milliseconds(20))
            return await !inbox.texts(on: "gym/probe").isEmpty
        }
        writer.publish(OutgoingMessage(topic: "gym/status", text: "online", qos: .atLeastOnce, retain: true))
        for n in 1...10 { writer.publish(OutgoingMessage(topic: "gym/session", text: "\(n)", qos: .atLeastOnce)) }
        try await waitUntil("first ten") { await Set(inbox.texts(on: "gym/session")).count == 10 }

        await broker.shutDown()
        try await waitUntil("writer noticed") { writer.status.state != .connected }
        for n in 11...20 { writer.publish(OutgoingMessage(topic: "gym/session", text: "\(n)", qos: .atLeastOnce)) }
        try await broker.start()
        for n in 21...30 { writer.publish(OutgoingMessage(topic: "gym/session", text: "\(n)", qos: .atLeastOnce)) }
        try await waitUntil("all thirty, at least once", timeout: .seconds(30)) {
            await Set(inbox.texts(on: "gym/session")) == Set((1...30).map(String.init))
        }
        let fresh = try client(broker, id: "fresh")
        try fresh.start()
        let freshInbox = MessageInbox(fresh.subscribe("gym/status"))
        try await waitUntil("retained status re-published after the restart") { await freshInbox.texts(on: "gym/status") == ["online"] }
        #expect(writer.status.connections >= 2)
        await writer.stop()
        await reader.stop()
        await fresh.stop()
    }

    /// A broker that crashed and lost everything (no persistence) shows the gateway's retained
    /// state again as soon as the client is back: the client publishes it on every connect.
    @Test func retainedStateIsPublishedAgainToABrokerThatLostIt() async throws {
        let broker = try await PrivateBroker()
        defer { broker.stop() }
        let writer = try client(broker, id: "writer")
        try writer.start()
        writer.publish(OutgoingMessage(topic: "gym/m1/state", text: "connecting", qos: .atLeastOnce, retain: true))
        writer.publish(OutgoingMessage(topic: "gym/m1/state", text: "ready", qos: .atLeastOnce, retain: true))
        writer.publish(OutgoingMessage(topic: "gym/gone/state", text: "ready", qos: .atLeastOnce, retain: true))
        writer.publish(OutgoingMessage(topic: "gym/gone/state", payload: [], qos: .atLeastOnce, retain: true))
        try await waitUntil("flushed") { writer.status.queued == 0 && writer.status.state == .connected }
        await broker.kill()
        try await waitUntil("writer noticed") { writer.status.state != .connected }
        try await broker.start()
        try await waitUntil("writer back") { writer.status.state == .connected && writer.status.queued == 0 }
        let reader = try client(broker, id: "reader")
        try reader.start()
        let inbox = MessageInbox(reader.subscribe("gym/#"))
        try await waitUntil("ready again") { await inbox.texts(on: "gym/m1/state") == ["ready"] }
        try await Task.sleep(for: .milliseconds(200))
        #expect(await inbox.texts(on: "gym/gone/state").isEmpty)
        await writer.stop()
        await reader.stop()
    }

    @Test func theLastWillIsSetAndACleanStopDoesNotTriggerIt() async throws {
        let broker = try await PrivateBroker()
        defer { broker.stop() }
        let reader = try client(broker, id: "reader")
        try reader.start()
        let inbox = MessageInbox(reader.subscribe("gw/+/status"))
        try await waitUntil("reader connected") { reader.status.state == .connected }
        let will = OutgoingMessage(topic: "gw/a/status", text: "offline", qos: .atLeastOnce, retain: true)
        let gateway = try client(broker, id: "gw-a", will: will)
        try gateway.start()
        gateway.publish(OutgoingMessage(topic: "gw/a/status", text: "online", qos: .atLeastOnce, retain: true))
        try await waitUntil("online") { await inbox.texts(on: "gw/a/status").last == "online" }
        // A clean stop says goodbye itself (the daemon publishes "offline" first); the broker
        // must not add its will.
        gateway.publish(OutgoingMessage(topic: "gw/a/status", text: "stopping", qos: .atLeastOnce, retain: true))
        await gateway.stop()
        try await waitUntil("goodbye") { await inbox.texts(on: "gw/a/status").last == "stopping" }
        try await Task.sleep(for: .milliseconds(300))
        #expect(await inbox.texts(on: "gw/a/status") == ["online", "stopping"])
        await reader.stop()
    }

    @Test func tlsWithTheBrokersCAConnectsAndAnUnrelatedCAIsAClearError() async throws {
        let broker = try await PrivateBroker(tls: true)
        defer { broker.stop() }
        let url = try #require(broker.tlsURL)
        let good = try MQTTClient(MQTTConfiguration(
            broker: try BrokerURL(parsing: url), clientID: "tls-good", username: broker.username, password: broker.password,
            caFile: broker.caFile, backoff: Self.quickRetry))
        try good.start()
        try await waitUntil("TLS connection") { good.status.state == .connected }
        await good.stop()

        let bad = try MQTTClient(MQTTConfiguration(
            broker: try BrokerURL(parsing: url), clientID: "tls-bad", username: broker.username, password: broker.password,
            caFile: try await broker.makeUnrelatedCA(), backoff: Self.quickRetry))
        try bad.start()
        try await waitUntil("a TLS error") { bad.status.lastError?.contains("TLS handshake failed") == true }
        #expect(bad.status.connections == 0)
        await bad.stop()
    }

    /// A subscriber that connects and never reads its socket (a stopped mosquitto_sub) must
    /// not slow the publisher or the other subscribers.
    @Test func aSubscriberThatNeverReadsDoesNotHoldUpThePublisher() async throws {
        let broker = try await PrivateBroker()
        defer { broker.stop() }
        let stuck = try broker.startSubscriber(filter: "gym/#")
        defer { stuck.stop() }
        try await waitUntil("stuck subscriber connected") { broker.log.contains("as stuck-reader") }
        stuck.pause()
        let reader = try client(broker, id: "reader")
        try reader.start()
        let inbox = MessageInbox(reader.subscribe("gym/last", qos: .atLeastOnce))
        let writer = try client(broker, id: "writer")
        try writer.start()
        try await waitUntil("both connected") { writer.status.state == .connected && reader.status.state == .connected }
        try await waitUntil("subscription active") {
            writer.publish(OutgoingMessage(topic: "gym/last", text: "probe", qos: .atLeastOnce))
            try? await Task.sleep(for: .milliseconds(20))
            return await !inbox.texts(on: "gym/last").isEmpty
        }
        let payload = [UInt8](repeating: UInt8(ascii: "x"), count: 2000)
        for _ in 0..<5000 { writer.publish(OutgoingMessage(topic: "gym/sample", payload: payload)) }
        writer.publish(OutgoingMessage(topic: "gym/last", text: "done", qos: .atLeastOnce))
        // The stuck subscriber holds up neither the writer nor the live reader: the last message
        // arrives (a broker that waited on the stuck one would never deliver it).
        try await waitUntil("the live reader got the last message", timeout: .seconds(120)) { await inbox.texts(on: "gym/last").last == "done" }
        #expect(writer.status.state == .connected)
        await writer.stop()
        await reader.stop()
    }

    @Test func brokerURLs() throws {
        #expect(try BrokerURL(parsing: "mqtt://broker.local") == BrokerURL(host: "broker.local", port: 1883, tls: false))
        #expect(try BrokerURL(parsing: "mqtts://broker.local") == BrokerURL(host: "broker.local", port: 8883, tls: true))
        #expect(try BrokerURL(parsing: "mqtt://10.0.0.5:1884/") == BrokerURL(host: "10.0.0.5", port: 1884, tls: false))
        #expect(try BrokerURL(parsing: "mqtts://[fd00::1]:8884") == BrokerURL(host: "fd00::1", port: 8884, tls: true))
        #expect(try BrokerURL(parsing: "mqtts://[fd00::1]:8884").description == "mqtts://[fd00::1]:8884")
        for bad in ["http://x", "mqtt://", "mqtt://x:0", "mqtt://x:70000", "mqtt://u:p@x", "mqtt://x/topic", "mqtt://[::1"] {
            #expect(throws: MQTTConfigurationError.self) { try BrokerURL(parsing: bad) }
        }
        let config = MQTTConfiguration(broker: try BrokerURL(parsing: "mqtt://x"), clientID: "c", username: "u", password: "s3cret")
        #expect(!config.description.contains("s3cret"))
    }
}
