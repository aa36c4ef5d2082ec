import Clocks

/// A connection to one MQTT broker that never makes its caller wait: ``publish(_:)`` queues
/// and returns, the client's own thread (see ``MQTTBinding``) connects, reconnects forever
/// and sends.
///
/// ```swift
/// let client = try MQTTClient(MQTTConfiguration(broker: try BrokerURL(parsing: "mqtt://broker.local"), clientID: "gw-1"))
/// try client.start()
/// client.publish(OutgoingMessage(topic: "gym/gw-1/status", text: "online", qos: .atLeastOnce, retain: true))
/// for await message in client.subscribe("gym/+/status") { print(message.topic, message.text) }
/// await client.stop()
/// ```
public final class MQTTClient: Sendable {
    public let configuration: MQTTConfiguration
    /// Connection changes, one per event, for logging and metrics. Ends when the client stops.
    public let events: AsyncStream<MQTTEvent>
    private let loop: MQTTLoop

    /// `random` draws the backoff's jitter (0..<1); tests pass a fixed sequence.
    public init(_ configuration: MQTTConfiguration, random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) throws(MQTTConfigurationError) {
        self.configuration = configuration
        let (events, continuation) = AsyncStream.makeStream(of: MQTTEvent.self, bufferingPolicy: .bufferingNewest(64))
        self.events = events
        loop = try MQTTLoop(configuration: configuration, random: random, events: continuation)
    }

    deinit {
        loop.shared.withLock { state in
            state.stopRequested = true
            state.stopDeadline = 0
        }
        loop.wake()
    }

    /// Starts the client's thread, which connects at once and keeps trying. A broker that is
    /// down is not an error here; ``status`` and ``events`` tell.
    public func start() throws(MQTTConfigurationError) {
        let first = loop.shared.withLock { state in
            defer { state.started = true }
            return !state.started && !state.stopped
        }
        guard first else { return }
        try loop.start()
        loop.wake()
    }

    /// Queues `message` and returns at once. Returns how many queued messages were dropped to
    /// make room (QoS 0 first). A retained message is also kept to be published again after
    /// every reconnect.
    @discardableResult
    public func publish(_ message: OutgoingMessage) -> Int {
        let dropped = loop.shared.withLock { state in
            state.remember(message)
            return state.queue.enqueue(message)
        }
        loop.wake()
        return dropped
    }

    /// Messages on topics matching `filter` (MQTT wildcards `+` and `#`), from now until the
    /// stream is dropped or the client stops; subscribed again on every reconnect. A consumer
    /// that falls behind loses the oldest beyond `buffer` messages, never stalls the client.
    public func subscribe(_ filter: String, qos: OutgoingMessage.QoS = .atMostOnce, buffer: Int = 1000) -> AsyncStream<MQTTMessage> {
        let (stream, continuation) = AsyncStream.makeStream(of: MQTTMessage.self, bufferingPolicy: .bufferingNewest(max(1, buffer)))
        let id: Int? = loop.shared.withLock { state in
            guard !state.stopped else { return nil }
            let id = state.nextSubscriptionID
            state.nextSubscriptionID += 1
            state.subscriptions[id] = Subscription(filter: filter, qos: Int32(qos.rawValue), continuation: continuation)
            state.subscriptionsChanged = true
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        let loop = loop
        continuation.onTermination = { _ in
            loop.shared.withLock { state in
                if let removed = state.subscriptions.removeValue(forKey: id) {
                    state.removedFilters.append(removed.filter)
                    state.subscriptionsChanged = true
                }
            }
            loop.wake()
        }
        loop.wake()
        return stream
    }

    public var status: MQTTStatus {
        loop.shared.withLock { state in
            var status = state.status
            status.queued = state.queue.count
            status.dropped += state.queue.dropped
            return status
        }
    }

    /// Sends what is queued for up to `flushTimeout` (when connected), disconnects cleanly
    /// (so the broker does not publish the last will) and ends the thread.
    public func stop(flushTimeout: Duration = .seconds(2)) async {
        let milliseconds = flushTimeout.milliseconds
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = loop.shared.withLock { state in
                guard !state.stopped else { return true }
                guard state.started else {
                    state.stopped = true
                    return true
                }
                if !state.stopRequested {
                    state.stopRequested = true
                    state.stopDeadline = SystemClocks.monotonicMilliseconds() + milliseconds
                }
                state.stopWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() } else { loop.wake() }
        }
    }
}
