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
    /// A view of now (a live sample): stale the moment a newer one exists. A live message
    /// replaces the live message still waiting on its topic, so a queue that fills while the
    /// broker is away holds the latest of each topic, not a backlog to be sent in a burst.
    public var live: Bool

    public init(topic: String, payload: [UInt8], qos: QoS = .atMostOnce, retain: Bool = false, live: Bool = false) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.live = live
    }

    public init(topic: String, text: String, qos: QoS = .atMostOnce, retain: Bool = false, live: Bool = false) {
        self.init(topic: topic, payload: Array(text.utf8), qos: qos, retain: retain, live: live)
    }
}
