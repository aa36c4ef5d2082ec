public import RetryTiming

/// Everything an ``MQTTClient`` needs to reach its broker. The password is held here and
/// handed to libmosquitto only; ``description`` never shows it.
public struct MQTTConfiguration: Sendable, CustomStringConvertible {
    public var broker: BrokerURL
    /// MQTT's client id: unique per broker (a second client with the same id takes the first
    /// one's place, so each gateway derives its own from its device id).
    public var clientID: String
    public var username: String?
    public var password: String?
    /// PEM file of the CA that signed the broker's certificate (`mqtts://`). `nil` uses the
    /// system's trust store.
    public var caFile: String?
    /// MQTT keepalive, whole seconds (5 or more): how soon the broker notices a dead client
    /// and publishes its last will (after 1.5 × keepalive).
    public var keepalive: Int
    /// Published by the broker for us when we vanish without a clean disconnect.
    public var will: OutgoingMessage?
    /// Most messages waiting to be sent (and QoS 1 messages waiting for their PUBACK).
    public var queueCapacity: Int
    /// Most QoS 1 messages handed to the broker and not yet acknowledged.
    public var maximumInFlight: Int
    /// Delays between connection attempts, jittered.
    public var backoff: Backoff
    /// MQTT's clean session. A publisher (the gateway) keeps it on; a subscriber that must not
    /// miss QoS 1 messages while it reconnects turns it off, with a fixed client id, and the
    /// broker queues for it.
    public var cleanSession: Bool

    public init(
        broker: BrokerURL, clientID: String, username: String? = nil, password: String? = nil, caFile: String? = nil,
        keepalive: Int = 30, will: OutgoingMessage? = nil, queueCapacity: Int = 1000, maximumInFlight: Int = 20,
        backoff: Backoff = Backoff(initial: .milliseconds(500), maximum: .seconds(30)), cleanSession: Bool = true
    ) {
        self.cleanSession = cleanSession
        self.broker = broker
        self.clientID = clientID
        self.username = username
        self.password = password
        self.caFile = caFile
        self.keepalive = max(5, keepalive)
        self.will = will
        self.queueCapacity = max(queueCapacity, maximumInFlight + 1, 2)
        self.maximumInFlight = max(1, maximumInFlight)
        self.backoff = backoff
    }

    public var description: String {
        var text = "\(broker) as \(clientID)"
        if let username { text += ", user \(username)" + (password == nil ? "" : " with a password") }
        if let caFile { text += ", CA \(caFile)" }
        return text
    }
}
