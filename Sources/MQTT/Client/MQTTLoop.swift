import ProcessOutput
import RetryTiming
import CMosquitto
import Clocks
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The thread that owns the client's libmosquitto handle and makes every libmosquitto call.
///
/// It polls the broker socket and an eventfd (other threads write it after queueing a message
/// or a subscription), reads and writes with `mosquitto_loop_read/write`, lets
/// `mosquitto_loop_misc` keep the connection alive, and between polls moves messages from the
/// shared queue into libmosquitto, but only while libmosquitto's own send buffer is empty:
/// so a broker that stops reading fills the bounded Swift queue (which drops samples), never
/// libmosquitto's unbounded one. libmosquitto's callbacks run inside those calls, on this
/// thread. State marked "loop thread" is touched only here, which is what makes the
/// `@unchecked Sendable` true; the rest is behind `shared`'s lock.
final class MQTTLoop: @unchecked Sendable {
    let configuration: MQTTConfiguration
    let shared: Mutex<SharedState>
    private let events: AsyncStream<MQTTEvent>.Continuation
    private let random: @Sendable () -> Double
    private let wakeDescriptor: Int32

    private enum Phase { case idle, connecting, connected }

    /// Loop thread.
    private var handle: OpaquePointer?
    private var phase = Phase.idle
    private var backoff: Backoff
    private var nextAttempt: Int64 = 0
    /// Loop thread: why the broker refused this attempt (from its CONNACK), if it did.
    private var refusal: String?
    /// Loop thread: a new connection needs its subscriptions and retained messages renewed.
    private var freshConnection = false

    init(configuration: MQTTConfiguration, random: @escaping @Sendable () -> Double, events: AsyncStream<MQTTEvent>.Continuation) throws(MQTTConfigurationError) {
        self.configuration = configuration
        self.random = random
        self.events = events
        backoff = configuration.backoff
        shared = Mutex(SharedState(capacity: configuration.queueCapacity))
        wakeDescriptor = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard wakeDescriptor >= 0 else { throw .invalid("cannot make the MQTT thread's eventfd (errno \(errno))") }
    }

    deinit {
        close(wakeDescriptor)
    }

    /// Starts the thread; it keeps the loop alive until it stops.
    func start() throws(MQTTConfigurationError) {
        var thread = pthread_t()
        let retained = Unmanaged.passRetained(self).toOpaque()
        let created = pthread_create(&thread, nil, { argument in
            guard let argument else { return nil }
            let loop = Unmanaged<MQTTLoop>.fromOpaque(argument).takeRetainedValue()
            loop.run()
            return nil
        }, retained)
        guard created == 0 else {
            Unmanaged<MQTTLoop>.fromOpaque(retained).release()
            throw .invalid("cannot start the MQTT thread (error \(created))")
        }
        pthread_detach(thread)
    }

    func wake() {
        var one: UInt64 = 1
        _ = write(wakeDescriptor, &one, 8)
    }

    // MARK: Loop thread

    private func run() {
        _ = cmosquitto_name_thread("mqtt-loop")
        MosquittoLibrary.ensureInitialised()
        while true {
            let now = SystemClocks.monotonicMilliseconds()
            let (stopping, deadline, pending) = shared.withLock { ($0.stopRequested, $0.stopDeadline, $0.queue.count) }
            if stopping {
                let flushed = pending == 0 && !(handle.map { mosquitto_want_write($0) } ?? false)
                if phase != .connected || flushed || now >= deadline {
                    finish()
                    return
                }
            }
            if handle == nil, !stopping, now >= nextAttempt { beginConnect() }
            if phase == .connected {
                renewIfFresh()
                syncSubscriptions()
                pump()
            }
            iterate(now: now, stopping: stopping, deadline: deadline)
        }
    }

    private func iterate(now: Int64, stopping: Bool, deadline: Int64) {
        var descriptors = [pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)]
        let socket = handle.map { mosquitto_socket($0) } ?? -1
        if let handle, socket >= 0 {
            let events = Int16(POLLIN) | (mosquitto_want_write(handle) ? Int16(POLLOUT) : 0)
            descriptors.append(pollfd(fd: socket, events: events, revents: 0))
        }
        // Connected, wake every half keepalive for libmosquitto's PINGREQ (so an idle gateway
        // adds one wake-up per 15 s, not per second); connecting, once a second; without a
        // connection, at the next attempt. A stop in progress is bounded by its deadline.
        var wait: Int64 = phase == .connected ? Int64(configuration.keepalive) * 500 : handle != nil ? 1000 : max(0, nextAttempt - now)
        if stopping { wait = min(wait, max(0, deadline - now), 50) }
        let ready = poll(&descriptors, nfds_t(descriptors.count), Int32(clamping: wait))
        if ready > 0, descriptors[0].revents != 0 {
            var counter: UInt64 = 0
            _ = read(wakeDescriptor, &counter, 8)
        }
        guard let handle else { return }
        if ready > 0, descriptors.count > 1 {
            let revents = descriptors[1].revents
            if revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                let rc = mosquitto_loop_read(handle, 1)
                if rc != MOSQ_ERR_SUCCESS.rawValue { return lost(rc, errno: errno) }
            }
            if revents & Int16(POLLOUT) != 0 {
                let rc = mosquitto_loop_write(handle, 1)
                if rc != MOSQ_ERR_SUCCESS.rawValue { return lost(rc, errno: errno) }
            }
        }
        let rc = mosquitto_loop_misc(handle)
        if rc != MOSQ_ERR_SUCCESS.rawValue || mosquitto_socket(handle) < 0 {
            lost(rc == MOSQ_ERR_SUCCESS.rawValue ? MOSQ_ERR_CONN_LOST.rawValue : rc, errno: 0)
        }
    }

    private func beginConnect() {
        refusal = nil
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let handle = mosquitto_new(configuration.clientID, configuration.cleanSession, context) else {
            return lost(MOSQ_ERR_NOMEM.rawValue, errno: errno)
        }
        self.handle = handle
        phase = .connecting
        shared.withLock { $0.status.state = .connecting }
        _ = mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311)
        if let username = configuration.username {
            _ = mosquitto_username_pw_set(handle, username, configuration.password)
        }
        if let will = configuration.will {
            let rc = will.payload.withUnsafeBytes { bytes in
                mosquitto_will_set(handle, will.topic, Int32(bytes.count), bytes.baseAddress, Int32(will.qos.rawValue), will.retain)
            }
            if rc != MOSQ_ERR_SUCCESS.rawValue { return lost(rc, errno: 0, context: "last will") }
        }
        if configuration.broker.tls {
            // Without a CA file, the system's trust store (Debian's ca-certificates).
            let rc = mosquitto_tls_set(handle, configuration.caFile, configuration.caFile == nil ? "/etc/ssl/certs" : nil, nil, nil, nil)
            if rc != MOSQ_ERR_SUCCESS.rawValue {
                return lost(rc, errno: errno, context: "CA file \(configuration.caFile ?? "/etc/ssl/certs")")
            }
        }
        mosquitto_connect_callback_set(handle) { _, context, code in
            guard let context else { return }
            Unmanaged<MQTTLoop>.fromOpaque(context).takeUnretainedValue().connectAnswered(code)
        }
        mosquitto_publish_callback_set(handle) { _, context, messageID in
            guard let context else { return }
            Unmanaged<MQTTLoop>.fromOpaque(context).takeUnretainedValue().acknowledged(messageID)
        }
        mosquitto_message_callback_set(handle) { _, context, message in
            guard let context, let message else { return }
            Unmanaged<MQTTLoop>.fromOpaque(context).takeUnretainedValue().received(message.pointee)
        }
        let rc = mosquitto_connect_async(handle, configuration.broker.host, Int32(configuration.broker.port), Int32(configuration.keepalive))
        if rc != MOSQ_ERR_SUCCESS.rawValue { lost(rc, errno: errno) }
    }

    /// The broker's CONNACK. Callback, loop thread.
    private func connectAnswered(_ code: Int32) {
        guard code == 0 else {
            var reason = MosquittoLibrary.connackText(code)
            if reason.hasPrefix("Connection Refused: ") { reason.removeFirst("Connection Refused: ".count) }
            refusal = "broker refused the connection: \(reason)"
            return
        }
        phase = .connected
        freshConnection = true
        backoff.reset()
        shared.withLock {
            $0.status.state = .connected
            $0.status.connections += 1
        }
        events.yield(.connected)
    }

    /// A PUBACK (QoS 1), or a QoS 0 message written. Callback, loop thread.
    private func acknowledged(_ messageID: Int32) {
        shared.withLock {
            if $0.queue.acknowledge(messageID) { $0.status.delivered += 1 }
        }
    }

    /// Callback, loop thread.
    private func received(_ message: mosquitto_message) {
        guard let topicPointer = message.topic else { return }
        let topic = String(cString: topicPointer)
        let payload: [UInt8] = message.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(message.payloadlen))) } ?? []
        let incoming = MQTTMessage(topic: topic, payload: payload, qos: Int(message.qos), retained: message.retain)
        let targets = shared.withLock { state in
            state.status.received += 1
            return state.subscriptions.values.filter { Self.matches($0.filter, topic) }.map(\.continuation)
        }
        for target in targets { target.yield(incoming) }
    }

    static func matches(_ filter: String, _ topic: String) -> Bool {
        var result = false
        return mosquitto_topic_matches_sub(filter, topic, &result) == MOSQ_ERR_SUCCESS.rawValue && result
    }

    /// After CONNACK: every subscription again, and every retained message (the broker may
    /// have restarted without them).
    private func renewIfFresh() {
        guard freshConnection else { return }
        freshConnection = false
        shared.withLock { state in
            state.subscriptionsChanged = true
            state.removedFilters.removeAll()
            for topic in state.retainedOrder {
                if let message = state.retained[topic] { state.queue.enqueue(message) }
            }
        }
        subscribeAll()
    }

    private func subscribeAll() {
        guard let handle else { return }
        let subscriptions = shared.withLock { state in
            state.subscriptionsChanged = false
            return Array(state.subscriptions.values)
        }
        for subscription in subscriptions {
            _ = mosquitto_subscribe(handle, nil, subscription.filter, subscription.qos)
        }
    }

    private func syncSubscriptions() {
        guard let handle else { return }
        let (changed, removed, remaining) = shared.withLock { state in
            defer {
                state.subscriptionsChanged = false
                state.removedFilters.removeAll()
            }
            return (state.subscriptionsChanged, state.removedFilters, Set(state.subscriptions.values.map(\.filter)))
        }
        guard changed else { return }
        for filter in removed where !remaining.contains(filter) {
            _ = mosquitto_unsubscribe(handle, nil, filter)
        }
        // SUBSCRIBE is idempotent for a filter already held: sending them all is simplest.
        let subscriptions = shared.withLock { Array($0.subscriptions.values) }
        for subscription in subscriptions {
            _ = mosquitto_subscribe(handle, nil, subscription.filter, subscription.qos)
        }
    }

    /// Hands queued messages to libmosquitto while its send buffer is empty.
    private func pump() {
        while let handle, phase == .connected, !mosquitto_want_write(handle) {
            guard let entry = shared.withLock({ $0.queue.nextToSend(maximumInFlight: configuration.maximumInFlight) }) else { return }
            var messageID: Int32 = 0
            let message = entry.message
            let rc = message.payload.withUnsafeBytes { bytes in
                mosquitto_publish(handle, &messageID, message.topic, Int32(bytes.count), bytes.baseAddress, Int32(message.qos.rawValue), message.retain)
            }
            switch rc {
            case MOSQ_ERR_SUCCESS.rawValue:
                shared.withLock { state in
                    if state.queue.markSent(id: entry.id, messageID: messageID), message.qos == .atMostOnce {
                        state.status.delivered += 1
                    }
                }
            case MOSQ_ERR_PAYLOAD_SIZE.rawValue, MOSQ_ERR_INVAL.rawValue, MOSQ_ERR_MALFORMED_UTF8.rawValue:
                // This message can never go out (bad topic, too large): drop it, keep the rest.
                shared.withLock { state in
                    state.queue.discard(id: entry.id)
                    state.status.dropped += 1
                    state.status.lastError = "message on \(message.topic) refused by libmosquitto: \(MosquittoLibrary.text(rc))"
                }
            default:
                return lost(rc, errno: errno)
            }
        }
    }

    /// The attempt failed or the connection is gone: forget the handle, keep the queue
    /// (unacknowledged QoS 1 messages go again), and schedule the next attempt.
    private func lost(_ code: Int32, errno savedErrno: Int32, context: String? = nil) {
        let wasConnected = phase == .connected
        let reason = "\(configuration.broker): " + (context.map { "\($0): " } ?? "") + (refusal ?? Self.describe(code, errno: savedErrno))
        destroyHandle()
        let delay = backoff.next(random: random())
        nextAttempt = SystemClocks.monotonicMilliseconds() + delay.milliseconds
        shared.withLock { state in
            state.queue.connectionLost()
            state.status.state = .waiting
            state.status.lastError = reason
        }
        events.yield(wasConnected ? .connectionLost(reason: reason, retryIn: delay) : .connectFailed(reason: reason, retryIn: delay))
    }

    private static func describe(_ code: Int32, errno: Int32) -> String {
        switch code {
        case MOSQ_ERR_ERRNO.rawValue:
            return errno == 0 ? "connection lost" : errnoText(errno).lowercased()
        case MOSQ_ERR_TLS.rawValue, MOSQ_ERR_TLS_HANDSHAKE.rawValue:
            return "TLS handshake failed (is the broker's certificate signed by the configured CA, for this host name?)"
        case MOSQ_ERR_KEEPALIVE.rawValue:
            return "no answer from the broker within the keepalive"
        case MOSQ_ERR_CONN_LOST.rawValue, MOSQ_ERR_NO_CONN.rawValue:
            return "connection lost"
        case MOSQ_ERR_EAI.rawValue:
            return "host name not found"
        default:
            return MosquittoLibrary.text(code)
        }
    }

    private func destroyHandle() {
        if let handle { mosquitto_destroy(handle) }
        handle = nil
        phase = .idle
        refusal = nil
    }

    /// Clean end: DISCONNECT (so the broker does not publish the last will: the caller
    /// published what it wanted the world to see), then every waiter and stream is told.
    private func finish() {
        if let handle, phase == .connected {
            _ = mosquitto_disconnect(handle)
            _ = mosquitto_loop_write(handle, 1)
        }
        destroyHandle()
        let (waiters, streams) = shared.withLock { state in
            state.status.state = .stopped
            state.stopped = true
            defer {
                state.stopWaiters.removeAll()
                state.subscriptions.removeAll()
            }
            return (state.stopWaiters, state.subscriptions.values.map(\.continuation))
        }
        events.finish()
        for stream in streams { stream.finish() }
        for waiter in waiters { waiter.resume() }
    }
}
