/// One message to publish. QoS 0 (at most once) or 1 (at least once); QoS 2's extra round
/// trip buys nothing for this data, so the client does not offer it.
public struct OutgoingMessage: Sendable, Equatable {
    public enum QoS: Int, Sendable, Equatable {
        case atMostOnce = 0
        case atLeastOnce = 1
    }

    public var topic: String
    public var payload: [UInt8]
    public var qos: QoS
    public var retain: Bool

    public init(topic: String, payload: [UInt8], qos: QoS = .atMostOnce, retain: Bool = false) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }

    public init(topic: String, text: String, qos: QoS = .atMostOnce, retain: Bool = false) {
        self.init(topic: topic, payload: Array(text.utf8), qos: qos, retain: retain)
    }
}
