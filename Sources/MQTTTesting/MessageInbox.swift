public import MQTT

/// A subscription's messages, collected in the background so that a test can wait for what it
/// expects (``texts(on:)`` with `waitUntil`) and then assert on all of it, order included.
public actor MessageInbox {
    public private(set) var messages: [MQTTMessage] = []

    public init(_ stream: AsyncStream<MQTTMessage>) {
        Task { await self.drain(stream) }
    }

    private func drain(_ stream: AsyncStream<MQTTMessage>) async {
        for await message in stream { messages.append(message) }
    }

    /// The payloads received on exactly `topic`, oldest first.
    public func texts(on topic: String) -> [String] {
        messages.filter { $0.topic == topic }.map(\.text)
    }
}
