import MQTT

/// What the floor check's subscription to `PREFIX/floor/#` received, collected in the
/// background so the check can wait for its own test message while the retained presences
/// come in alongside it. Waits end when the message comes, or with `false` when the
/// subscription ends (the client stopped); the check bounds them with `withTimeout`.
actor FloorInbox {
    private(set) var messages: [MQTTMessage] = []
    private var finished = false
    private var waiters: [(topic: String, payload: [UInt8], continuation: CheckedContinuation<Bool, Never>)] = []

    init(_ stream: AsyncStream<MQTTMessage>) {
        Task { await self.drain(stream) }
    }

    private func drain(_ stream: AsyncStream<MQTTMessage>) async {
        for await message in stream {
            messages.append(message)
            waiters.removeAll { waiter in
                guard waiter.topic == message.topic && waiter.payload == message.payload else { return false }
                waiter.continuation.resume(returning: true)
                return true
            }
        }
        finished = true
        for waiter in waiters { waiter.continuation.resume(returning: false) }
        waiters = []
    }

    /// True once a message with `payload` has come on `topic`; false if the subscription ends first.
    func arrival(topic: String, payload: [UInt8]) async -> Bool {
        if messages.contains(where: { $0.topic == topic && $0.payload == payload }) { return true }
        guard !finished else { return false }
        return await withCheckedContinuation { continuation in
            waiters.append((topic, payload, continuation))
        }
    }

    /// Returns when the subscription ends: a window of listening, bounded by the caller.
    func end() async {
        _ = await arrival(topic: "", payload: [])
    }
}
