import Clocks
package import Logging
package import MQTT
package import Publish
import Synchronization
package import Workout

/// Everything the daemon publishes on MQTT (docs/mqtt.md), beside the metrics socket: the same
/// contract §7 envelopes, byte for byte (``LivePublisher`` hands over the socket's encoded line),
/// on a topic per gateway and machine.
///
/// Nothing here waits: ``forward(_:machine:envelope:)`` decides the topic and hands the bytes to
/// the ``MQTTClient``'s bounded queue, a lock and an eventfd write, so the BLE and session paths
/// never feel the broker. Samples are rate-limited per machine (latest wins) before they are
/// queued, and queued as live messages: while the broker is away each machine's latest sample
/// replaces the one waiting, so its return brings one current sample per machine, not a burst
/// of stale ones. Everything else is queued as it comes.
package final class MQTTPublisher: EnvelopeForwarder {
    package let client: MQTTClient
    package let topics: MQTTTopics
    package let discovery: HomeAssistantDiscovery?
    private let kinds: Set<String>
    private let limiter: Mutex<SampleRateLimiter>
    private let announced = Mutex<Set<String>>([])
    private let now: @Sendable () -> Duration
    private let timers: any Clock<Duration>

    /// - Parameters:
    ///   - kinds: `[mqtt] publish`: which of `state`, `sample`, `session`, `upload` to publish.
    ///   - now: monotonic time, for the sample rate limit.
    ///   - timers: runs the rate limit's trailing-edge timer.
    package init(
        client: MQTTClient, topics: MQTTTopics, kinds: Set<String>, sampleInterval: Duration,
        discovery: HomeAssistantDiscovery?, now: @escaping @Sendable () -> Duration, timers: any Clock<Duration>
    ) {
        self.client = client
        self.topics = topics
        self.kinds = kinds
        self.discovery = discovery
        limiter = Mutex(SampleRateLimiter(interval: sampleInterval))
        self.now = now
        self.timers = timers
    }

    /// The last will (`offline`, retained) for the client's configuration.
    package static func will(_ topics: MQTTTopics) -> OutgoingMessage {
        OutgoingMessage(topic: topics.status, text: "offline", qos: .atLeastOnce, retain: true)
    }

    /// Connects (in the background) and says `online`.
    package func start() throws {
        try client.start()
        client.publish(OutgoingMessage(topic: topics.status, text: "online", qos: .atLeastOnce, retain: true))
    }

    /// Says `offline` (a clean disconnect does not trigger the will), sends what is queued
    /// for up to `flushTimeout` and disconnects.
    package func stop(flushTimeout: Duration = .seconds(2)) async {
        client.publish(OutgoingMessage(topic: topics.status, text: "offline", qos: .atLeastOnce, retain: true))
        await client.stop(flushTimeout: flushTimeout)
    }

    /// Whether ``forward(_:machine:envelope:)`` publishes messages of `type` at all (`[mqtt]
    /// publish`), so a sample nobody forwards need not be encoded for MQTT.
    package func forwards(_ type: MessageType) -> Bool {
        switch type {
        case .machine: kinds.contains("state")
        case .sample: kinds.contains("sample")
        case .sessionState, .sessionSummary: kinds.contains("session")
        case .upload: kinds.contains("upload")
        default: false
        }
    }

    /// One metrics-socket message, as the socket wrote it.
    package func forward(_ type: MessageType, machine: String?, envelope: [UInt8]) {
        switch type {
        case .machine:
            guard kinds.contains("state"), let machine else { return }
            client.publish(OutgoingMessage(topic: topics.state(machine), payload: envelope, qos: .atLeastOnce, retain: true))
        case .sample:
            guard kinds.contains("sample"), let machine else { return }
            let decision = limiter.withLock { $0.offer(envelope, machine: machine, now: now()) }
            switch decision {
            case .send:
                client.publish(OutgoingMessage(topic: topics.sample(machine), payload: envelope, live: true))
            case .hold(let flushAfter?):
                let timers = timers
                Task { [self] in
                    try? await timers.sleep(for: flushAfter)
                    flushSample(machine)
                }
            case .hold(nil):
                break
            }
        case .sessionState, .sessionSummary:
            guard kinds.contains("session"), let machine else { return }
            client.publish(OutgoingMessage(topic: topics.session(machine), payload: envelope, qos: .atLeastOnce))
        case .upload:
            guard kinds.contains("upload") else { return }
            client.publish(OutgoingMessage(topic: topics.upload, payload: envelope, qos: .atLeastOnce, retain: true))
        default:
            break
        }
    }

    /// The open session of `machine` as a retained message, so that a subscriber arriving
    /// mid-session (a dashboard opened after the rider started) knows the session and its clock
    /// at once: the latest `session_state` envelope while the session is open, cleared (an
    /// empty retained message) when it finishes or is dropped. The `session` topic keeps every
    /// event unretained, so none of them is coalesced away during a broker outage.
    package func sessionChanged(_ machine: String, openEnvelope: [UInt8]?) {
        guard kinds.contains("session") else { return }
        client.publish(OutgoingMessage(topic: topics.openSession(machine), payload: openEnvelope ?? [], qos: .atLeastOnce, retain: true))
    }

    /// The state database's condition (`status`'s `store` object, JSON), retained, whenever it
    /// changes: whether it can write, why not, the room left, sessions held in memory, a damaged
    /// file moved aside. Always published, like `status`: it is the gateway's health.
    package func storeChanged(_ json: String) {
        client.publish(OutgoingMessage(topic: topics.store, text: json, qos: .atLeastOnce, retain: true))
    }

    private func flushSample(_ machine: String) {
        guard let envelope = limiter.withLock({ $0.flush(machine: machine, now: now()) }) else { return }
        client.publish(OutgoingMessage(topic: topics.sample(machine), payload: envelope, live: true))
    }

    /// Home Assistant discovery for `machine`, once per run (retained, so Home Assistant has
    /// it whenever it starts; the client re-publishes it after a broker restart).
    package func announce(_ machine: MachineIdentity, manufacturer: String?) {
        guard let discovery else { return }
        let key = "\(machine.name)|\(machine.model ?? "")|\(manufacturer ?? "")"
        let first = announced.withLock { $0.insert(key).inserted }
        guard first else { return }
        for message in discovery.announce(machine, manufacturer: manufacturer) {
            client.publish(OutgoingMessage(topic: message.topic, payload: message.payload, qos: .atLeastOnce, retain: true))
        }
    }

    /// Removes the discovery entities of machines the allow-list no longer names: reads this
    /// gateway's retained config topics for `window` and clears those of other machines. An
    /// entry with a colon is an address, matched against the device's Bluetooth connection in
    /// the retained config; a config without one (announced by an older version) is kept when
    /// the list names addresses, since nothing says whose it is.
    package func removeEntities(keeping allow: [String], window: Duration, logger: Logger) async {
        guard let discovery, !allow.isEmpty else { return }
        let keptNames = Set(allow.filter { !$0.contains(":") }.map(HomeAssistantDiscovery.identifier))
        let keptAddresses = Set(allow.filter { $0.contains(":") }.map { $0.uppercased() })
        let stream = client.subscribe(discovery.subscription, qos: .atLeastOnce)
        _ = await firstOf(
            { [client] in
                var removed = Set<String>()
                for await message in stream where !message.payload.isEmpty {
                    guard let machine = discovery.machineIdentifier(ofConfigTopic: message.topic), !keptNames.contains(machine) else { continue }
                    if !keptAddresses.isEmpty {
                        guard let address = HomeAssistantDiscovery.bluetoothAddress(ofConfig: message.payload),
                            !keptAddresses.contains(address)
                        else { continue }
                    }
                    client.publish(OutgoingMessage(topic: message.topic, payload: [], qos: .atLeastOnce, retain: true))
                    if removed.insert(machine).inserted {
                        logger.info("Home Assistant: removing the entities of \(machine) (not in machines.allow)")
                    }
                }
            },
            timeout: window, on: timers)
    }
}
