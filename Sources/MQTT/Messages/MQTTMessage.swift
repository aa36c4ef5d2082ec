/// A message received on a subscription.
public struct MQTTMessage: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: Int
    /// True when the broker sent it from its retained store (on subscribe), not live.
    public var retained: Bool

    public init(topic: String, payload: [UInt8], qos: Int, retained: Bool) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retained = retained
    }

    /// The payload as UTF-8 text (invalid bytes repaired).
    public var text: String { String(decoding: payload, as: UTF8.self) }
}
